// Search (text, regex, op name) with hits per pass, jumps to where a match appears or
// disappears, and the op census chart along the timeline.

import { button, clear, h, svg } from './dom';
import { Model } from './model';
import { countPerSnapshot, makeMatcher, Matcher, SearchMode } from './search';

export interface SearchEvents {
  onSearch(matcher: Matcher | null, counts: Int32Array | null): void;
  onJump(dump: number): void;
  /** Enter again in the search box: the next (1) or previous (-1) matching line. */
  onStep(dir: 1 | -1): void;
}

const CENSUS_H = 36;

export class SearchPanel {
  readonly node: HTMLDivElement;
  readonly input: HTMLInputElement;
  private readonly mode: HTMLSelectElement;
  private readonly info: HTMLSpanElement;
  private readonly censusInput: HTMLInputElement;
  private readonly censusInfo: HTMLSpanElement;
  private readonly chart: HTMLDivElement;
  private counts: Int32Array | null = null;
  /** The mode and query the counts are for. */
  private ran = '';
  private census: Int32Array | null = null;
  private censusOp = '';
  private drawn: { census: Int32Array; order: number[]; bars: SVGElement[]; cur: number } | null = null;

  constructor(private readonly model: Model, private readonly events: SearchEvents) {
    this.input = h('input', { cls: 'air-search', type: 'search', placeholder: 'search IR (press /)', aria: { label: 'search' } });
    this.mode = h('select', { cls: 'air-mode', aria: { label: 'search mode' } },
      h('option', { value: 'text' }, 'text'), h('option', { value: 'regex' }, 'regex'), h('option', { value: 'op' }, 'op name'));
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
    this.censusInput = h('input', { cls: 'air-census-op', placeholder: 'op census, e.g. hivm.hir.set_flag', aria: { label: 'census op' } });
    this.censusInput.setAttribute('list', 'air-census-ops');
    const ops = h('datalist', null, ...['hivm.hir.set_flag', 'hivm.hir.wait_flag', 'hivm.hir.pipe_barrier', 'hivm.hir.sync_block_set', 'scf.for', 'tt.load', 'tt.store'].map(o => h('option', { value: o })));
    ops.id = 'air-census-ops';
    this.censusInput.addEventListener('keydown', ev => {
      if (ev.key === 'Enter') {
        this.runCensus();
      }
    });
    this.censusInfo = h('span', { cls: 'air-census-info' });
    this.chart = h('div', { cls: 'air-census-chart' });
    this.chart.addEventListener('click', ev => this.pickFromChart(ev));
    this.node = h('div', { cls: 'air-searchbar' },
      h('div', { cls: 'air-row-tools' },
        this.mode, this.input,
        button('Find', 'search every pass; Enter steps to the next hit, Shift+Enter back', () => this.run()),
        button('↦ appears', 'next pass where the match appears', () => this.jump(true)),
        button('↦ disappears', 'next pass where the match disappears', () => this.jump(false)),
        this.info),
      h('div', { cls: 'air-row-tools' },
        this.censusInput, ops, button('Census', 'count this op in every pass', () => this.runCensus()), this.censusInfo),
      this.chart);
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
    const start = Math.max(0, order.findIndex(i => i > this.model.cur));
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
    this.censusOp = this.censusInput.value.trim();
    const m = this.censusOp ? makeMatcher('op', this.censusOp) : null;
    this.census = m && typeof m !== 'string' ? countPerSnapshot(this.model.p.lines, this.model.p.snapshots, m) : null;
    this.update();
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
    const census = this.census;
    if (!census) {
      clear(this.chart);
      this.drawn = null;
      this.censusInfo.textContent = this.censusOp ? `no op named ${this.censusOp}` : '';
      return;
    }
    const order = this.model.order();
    const values = order.map(i => this.countAt(i, census));
    const max = Math.max(1, ...values);
    if (this.drawn === null || this.drawn.census !== census || this.drawn.order !== order) {
      // Redrawn when the census or the shown passes change; a step only moves the marker.
      clear(this.chart);
      const chart = svg('svg', { viewBox: `0 0 ${Math.max(1, values.length)} ${CENSUS_H}`, preserveAspectRatio: 'none', class: 'air-census-svg' });
      const bars = values.map((v, k) => {
        const bh = (v / max) * (CENSUS_H - 2);
        return chart.appendChild(svg('rect', { x: k + 0.1, y: CENSUS_H - bh, width: 0.8, height: bh, class: 'air-bar' }));
      });
      this.chart.appendChild(chart);
      this.drawn = { census, order, bars, cur: -1 };
    }
    const k = order.indexOf(this.model.cur);
    if (k !== this.drawn.cur) {
      this.drawn.bars[this.drawn.cur]?.setAttribute('class', 'air-bar');
      this.drawn.bars[k]?.setAttribute('class', 'air-bar air-bar-cur');
      this.drawn.cur = k;
    }
    const here = this.countAt(this.model.cur, census);
    this.censusInfo.textContent = `${this.censusOp}: ${here} here · max ${max} over ${values.length} passes`;
  }

  private pickFromChart(ev: MouseEvent): void {
    const order = this.model.order();
    const box = this.chart.getBoundingClientRect();
    if (!this.census || order.length === 0 || box.width === 0) {
      return;
    }
    const k = Math.min(order.length - 1, Math.max(0, Math.floor(((ev.clientX - box.left) / box.width) * order.length)));
    this.events.onJump(order[k]);
  }
}
