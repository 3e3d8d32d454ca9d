// The named pass list beside the IR: stage headers, then one row per pass with its changed /
// unchanged / failed mark, index, name and argument, scope, Δ lines and a time bar; runs of
// canonicalize/cse collapse into one row. The strip above stays as the overview.

import { clear, h } from './dom';
import { formatMs, type Model, passLabel } from './model';
import { shownText } from './text';

export interface PassListEvents {
  onPick(dump: number): void;
  onExpand(first: number): void;
}

const MARKS: Record<string, [string, string]> = {
  changed: ['●', 'changed the IR'],
  same: ['○', 'changed nothing'],
  failed: ['✗', 'failed']
};

function state(d: { phase: string; changed: boolean }): string {
  return d.phase === 'failed' ? 'failed' : d.changed ? 'changed' : 'same';
}

/** `+12`, `−3`, `±0` lines; empty for the first state of a scope. */
function deltaText(n: number | null): string {
  if (n === null) {
    return '';
  }
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '±0';
}

export class PassList {
  readonly node: HTMLDivElement;
  private readonly body: HTMLDivElement;
  private rows = new Map<number, HTMLElement>();
  private current: HTMLElement | null = null;
  private revealFrame = 0;
  private drawn = false;
  private pending = false;

  constructor(
    private readonly model: Model,
    private readonly events: PassListEvents
  ) {
    this.body = h('div', { cls: 'air-pl-body', role: 'listbox', aria: { label: 'passes by name' } });
    this.node = h('div', { cls: 'air-passlist' }, this.body);
  }

  /**
   * (Re)draw the list. The first drawing waits until the IR has been painted: the page shows
   * the pass and its IR first, the list one frame later.
   */
  build(): void {
    if (!this.drawn) {
      if (!this.pending) {
        this.pending = true;
        requestAnimationFrame(() =>
          setTimeout(() => {
            this.drawn = true;
            this.draw();
          }, 0)
        );
      }
      return;
    }
    this.draw();
  }

  private draw(): void {
    clear(this.body);
    this.rows.clear();
    this.current = null;
    const { p } = this.model;
    const byStage = this.model.byStage();
    if (byStage.size === 0) {
      this.body.appendChild(h('div', { cls: 'air-empty' }, 'No pass matches the filters.'));
    }
    for (const [s, dumps] of byStage) {
      const ms = this.model.stageMs.get(s);
      const failed = dumps.some(i => p.dumps[i].phase === 'failed') || (p.stages[s].returncode ?? 0) !== 0;
      this.body.appendChild(
        h(
          'div',
          { cls: failed ? 'air-pl-stage air-pl-stage-failed' : 'air-pl-stage', role: 'presentation' },
          h('span', { cls: 'air-pl-stagename' }, shownText(p.stages[s].name)),
          h('span', { cls: 'air-pl-stageinfo' }, `${dumps.length} pass${dumps.length === 1 ? '' : 'es'}${ms ? ` · ${formatMs(ms.total)}` : ''}${failed ? ' · failed' : ''}`)
        )
      );
      for (const e of this.model.entries(dumps)) {
        this.body.appendChild('run' in e ? this.groupRow(e.run) : this.row(e.dump));
      }
    }
    this.setCurrent(this.model.cur);
  }

  private row(i: number): HTMLElement {
    const d = this.model.p.dumps[i];
    const st = state(d);
    const [mark, what] = MARKS[st];
    const label = passLabel(d);
    const full = `#${i} ${d.pass}${d.arg && d.arg !== d.pass ? ` (${d.arg})` : ''} · ${d.phase} · ${d.scope} · ${what}`;
    const r = h(
      'div',
      { cls: `air-pl-row air-pl-${st}`, role: 'option', title: shownText(full), data: { dump: String(i) }, aria: { selected: 'false' } },
      h('span', { cls: 'air-pl-mark', aria: { label: what } }, mark),
      h('span', { cls: 'air-pl-idx' }, `#${i}`),
      h('span', { cls: 'air-pl-name' }, shownText(label)),
      h('span', { cls: 'air-pl-scope' }, shownText(shortScope(d.scope))),
      h('span', { cls: 'air-pl-delta' }, deltaText(this.model.deltaLines(i))),
      this.timeBar(d.stage, d.ms)
    );
    if (this.model.notesOf(i).length) {
      r.classList.add('air-has-note');
    }
    const msgs = this.model.messagesOf(i);
    if (msgs.some(m => m.level === 'error')) {
      r.classList.add('air-pl-msgs');
      r.title = `${r.title}\n${msgs.length} compiler message${msgs.length === 1 ? '' : 's'} here`;
    }
    r.addEventListener('click', () => this.events.onPick(i));
    this.rows.set(i, r);
    return r;
  }

  private groupRow(run: number[]): HTMLElement {
    const dumps = run.map(i => this.model.p.dumps[i]);
    const changed = dumps.filter(d => d.changed).length;
    const ms = dumps.reduce((sum, d) => sum + (d.ms ?? 0), 0);
    const timed = dumps.some(d => d.ms !== null);
    const r = h(
      'div',
      {
        cls: `air-pl-row air-pl-group ${changed ? 'air-pl-changed' : 'air-pl-same'}`,
        role: 'option',
        title: `#${run[0]}–#${run[run.length - 1]}: ${run.length} clean-up passes (canonicalize/cse/dce), ${changed} changed; click to expand`,
        aria: { selected: 'false' }
      },
      h('span', { cls: 'air-pl-mark' }, changed ? '●' : '○'),
      h('span', { cls: 'air-pl-idx' }, `#${run[0]}`),
      h('span', { cls: 'air-pl-name' }, `clean-up ×${run.length}`),
      h('span', { cls: 'air-pl-scope' }, `${changed} changed`),
      h('span', { cls: 'air-pl-delta' }),
      this.timeBar(dumps[0].stage, timed ? ms : null)
    );
    r.addEventListener('click', () => this.events.onExpand(run[0]));
    for (const i of run) {
      this.rows.set(i, r);
    }
    return r;
  }

  /** The pass time as a bar against the slowest pass of its stage. */
  private timeBar(stage: number, ms: number | null): HTMLElement {
    const cell = h('span', { cls: 'air-pl-time' });
    const max = this.model.stageMs.get(stage)?.max ?? 0;
    if (ms !== null && max > 0) {
      const bar = h('span', { cls: 'air-pl-bar' });
      bar.style.width = `${Math.max(2, Math.round((100 * ms) / max))}%`;
      cell.title = formatMs(ms);
      cell.appendChild(bar);
    }
    return cell;
  }

  setCurrent(i: number): void {
    if (this.current) {
      this.current.classList.remove('air-current');
      this.current.setAttribute('aria-selected', 'false');
    }
    this.current = this.rows.get(i) ?? null;
    if (this.current) {
      this.current.classList.add('air-current');
      this.current.setAttribute('aria-selected', 'true');
      this.scheduleReveal();
    }
  }

  /** Scroll the current row into view, reading layout in the next frame only. */
  private scheduleReveal(): void {
    if (this.revealFrame !== 0) {
      return;
    }
    this.revealFrame = requestAnimationFrame(() => {
      this.revealFrame = 0;
      const cur = this.current;
      if (!cur || this.body.scrollHeight <= this.body.clientHeight) {
        return;
      }
      const r = cur.getBoundingClientRect();
      const box = this.body.getBoundingClientRect();
      if (r.top < box.top || r.bottom > box.bottom) {
        this.body.scrollTop += r.top - box.top - box.height / 2;
      }
    });
  }
}

/** `func.func @_attn_fwd_inner_very_long` → `@_attn_fwd_inner_very_long`; the module stays. */
export function shortScope(scope: string): string {
  const at = scope.indexOf('@');
  return at >= 0 ? scope.slice(at) : scope === 'builtin.module' ? 'module' : scope;
}
