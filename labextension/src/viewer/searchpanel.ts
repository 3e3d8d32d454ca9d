// Search (text, regex, op name) with hits per pass, jumps to where a match appears or
// disappears, and the op census chart along the timeline.

import { Census } from './census';
import { button, h } from './dom';
import type { Model } from './model';
import { countPerSnapshot, type Matcher, makeMatcher, type SearchMode } from './search';
import { CENSUS_OPS, SUGGESTED_OPS } from './syncops';

export interface SearchEvents {
  onSearch(matcher: Matcher | null, counts: Int32Array | null): void;
  onJump(dump: number): void;
  /** Enter again in the search box: the next (1) or previous (-1) matching line. */
  onStep(dir: 1 | -1): void;
}

export class SearchPanel {
  readonly node: HTMLDivElement;
  readonly input: HTMLInputElement;
  private readonly mode: HTMLSelectElement;
  private readonly info: HTMLSpanElement;
  private readonly censusInput: HTMLInputElement;
  private readonly census: Census;
  private censusBad = '';
  private counts: Int32Array | null = null;
  /** The mode and query the counts are for. */
  private ran = '';

  constructor(
    private readonly model: Model,
    private readonly events: SearchEvents
  ) {
    this.input = h('input', { cls: 'air-search', type: 'search', placeholder: 'search IR (press /)', aria: { label: 'search' } });
    this.mode = h(
      'select',
      { cls: 'air-mode', aria: { label: 'search mode' } },
      h('option', { value: 'text' }, 'text'),
      h('option', { value: 'regex' }, 'regex'),
      h('option', { value: 'op' }, 'op name')
    );
    this.info = h('span', { cls: 'air-search-info' });
    this.input.addEventListener('keydown', ev => {
      if (ev.key === 'Enter') {
        ev.preventDefault();
        const same = this.counts !== null && this.ran === `${this.mode.value}|${this.input.value}`;
        if (!same) {
          this.run();
        }
        if (this.counts) {
          this.events.onStep(ev.shiftKey ? -1 : 1);
        }
      }
    });
    this.mode.addEventListener('change', () => this.run());
    this.censusInput = h('input', { cls: 'air-census-op', placeholder: 'op census: ops, comma separated', aria: { label: 'census ops, comma separated' } });
    this.censusInput.setAttribute('list', 'air-census-ops');
    const ops = h('datalist', null, ...[...SUGGESTED_OPS, 'scf.for', 'tt.load', 'tt.store'].map(o => h('option', { value: o })));
    ops.id = 'air-census-ops';
    this.censusInput.addEventListener('keydown', ev => {
      if (ev.key === 'Enter') {
        this.runCensus();
      }
    });
    this.census = new Census(model, i => this.events.onJump(i));
    this.node = h(
      'div',
      { cls: 'air-searchbar' },
      h(
        'div',
        { cls: 'air-row-tools' },
        this.mode,
        this.input,
        button('Find', 'search every pass; Enter steps to the next hit, Shift+Enter back', () => this.run()),
        button('↦ appears', 'next pass where the match appears', () => this.jump(true)),
        button('↦ disappears', 'next pass where the match disappears', () => this.jump(false)),
        this.info
      ),
      h(
        'div',
        { cls: 'air-row-tools' },
        this.censusInput,
        ops,
        button('Census', 'count these ops in every pass', () => this.runCensus()),
        this.census.info
      ),
      this.census.node
    );
  }

  /** Lines matching in the IR shown for dump i (0 without a search). */
  hitsIn(i: number): number {
    return this.counts ? this.counts[this.model.shown(i).snap] : 0;
  }

  /** Say where the search stands (`hit 2 of 5 in this pass`). */
  say(text: string): void {
    this.info.textContent = text;
  }

  focus(): void {
    this.input.focus();
    this.input.select();
  }

  private run(): void {
    const q = this.input.value;
    if (q === '') {
      this.counts = null;
      this.info.textContent = '';
      this.events.onSearch(null, null);
      return;
    }
    const m = makeMatcher(this.mode.value as SearchMode, q);
    if (typeof m === 'string') {
      this.counts = null;
      this.info.textContent = m;
      this.events.onSearch(null, null);
      return;
    }
    this.counts = countPerSnapshot(this.model.p.lines, this.model.p.snapshots, m);
    this.ran = `${this.mode.value}|${q}`;
    this.events.onSearch(m, this.counts);
    this.update();
  }

  private countAt(dump: number, counts: Int32Array): number {
    return dump < 0 ? 0 : counts[this.model.p.dumps[dump].snap];
  }

  private jump(appears: boolean): void {
    if (!this.counts) {
      this.run();
    }
    const counts = this.counts;
    if (!counts) {
      return;
    }
    const order = this.model.order();
    const start = Math.max(
      0,
      order.findIndex(i => i > this.model.cur)
    );
    for (let k = 0; k < order.length; k++) {
      const i = order[(start + k) % order.length];
      const [from, to] = this.model.changeOf(i);
      const now = this.countAt(to.i, counts);
      const before = from ? this.countAt(from.i, counts) : 0;
      if (appears ? now > 0 && before === 0 : now === 0 && before > 0) {
        this.events.onJump(i);
        return;
      }
    }
    this.info.textContent = `the match never ${appears ? 'appears' : 'disappears'} in the shown passes`;
  }

  private runCensus(): void {
    const bad = this.census.set(this.censusInput.value);
    this.censusBad = bad.length ? `no op named ${bad.join(', ')}` : '';
    this.update();
  }

  /** Open with the sync-op census when the IR is HIVM (deferred: after the first paint). */
  censusByDefault(): void {
    if (this.model.p.lines.some(l => l.includes(CENSUS_OPS[0]))) {
      this.censusInput.value = CENSUS_OPS.join(', ');
      this.runCensus();
    }
  }

  /** Refresh texts and markers that depend on the current pass or the filters. */
  update(): void {
    const cur = this.model.cur;
    if (this.counts) {
      const passes = this.model.order().filter(i => this.countAt(i, this.counts as Int32Array) > 0).length;
      this.info.textContent = `${this.countAt(cur, this.counts)} matching lines here · ${passes} passes match`;
    }
    this.drawCensus();
  }

  private drawCensus(): void {
    this.census.update();
    if (this.censusBad) {
      this.census.info.textContent = `${this.census.info.textContent ? `${this.census.info.textContent} · ` : ''}${this.censusBad}`;
    }
  }
}
