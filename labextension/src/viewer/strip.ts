// The pass strip: one cell per dump, grouped by stage; runs of canonicalize/cse collapsible.

import { clear, h } from './dom';
import { formatMs, type Model, passLabel } from './model';
import { shownText } from './text';

/** Height in px of the tallest timing bar (the slowest pass of its stage). */
const MSBAR_MAX = 8;

export class Strip {
  readonly node: HTMLDivElement;
  private cells = new Map<number, HTMLElement>();
  private current: HTMLElement | null = null;
  private revealFrame = 0;

  constructor(
    private readonly model: Model,
    private readonly onPick: (dump: number) => void,
    private readonly onExpand: (first: number) => void
  ) {
    this.node = h('div', { cls: 'air-strip', role: 'navigation', aria: { label: 'passes' } });
  }

  build(): void {
    clear(this.node);
    this.cells.clear();
    this.current = null;
    const { p } = this.model;
    const byStage = this.model.byStage();
    if (byStage.size === 0) {
      this.node.appendChild(h('div', { cls: 'air-empty' }, 'No pass matches the filters.'));
    }
    for (const [s, dumps] of byStage) {
      const cells = h('div', { cls: 'air-cells' });
      for (const e of this.model.entries(dumps)) {
        cells.appendChild('run' in e ? this.groupCell(e.run) : this.cell(e.dump));
      }
      const ms = this.model.stageMs.get(s);
      const command = (p.stages[s].command ?? []).join(' ');
      const title = ms ? `${command}${command ? '\n' : ''}pass times: ${formatMs(ms.total)} in all, slowest ${formatMs(ms.max)}` : command;
      this.node.appendChild(h('div', { cls: ms ? 'air-stage air-timed' : 'air-stage' }, h('span', { cls: 'air-stage-name', title: shownText(title) }, shownText(p.stages[s].name)), cells));
    }
    this.setCurrent(this.model.cur);
  }

  private cell(i: number): HTMLElement {
    const d = this.model.p.dumps[i];
    const state = d.phase === 'failed' ? 'air-failed' : d.changed ? 'air-changed' : 'air-same';
    const c = h('div', {
      cls: `air-cell ${state}`,
      title: shownText(`#${i} ${passLabel(d)} (${d.pass}) · ${d.phase} · ${d.scope}${d.ms === null ? '' : ` · ${formatMs(d.ms)}`}`),
      data: { dump: String(i) }
    });
    if (this.model.notesOf(i).length) {
      c.classList.add('air-has-note');
    }
    if (d.ms !== null) {
      c.appendChild(this.msBar(d.stage, d.ms));
    }
    c.addEventListener('click', () => this.onPick(i));
    this.cells.set(i, c);
    return c;
  }

  private groupCell(run: number[]): HTMLElement {
    const dumps = run.map(i => this.model.p.dumps[i]);
    const changed = dumps.filter(d => d.changed).length;
    const timed = dumps.filter(d => d.ms !== null);
    const ms = timed.reduce((sum, d) => sum + (d.ms ?? 0), 0);
    const g = h(
      'div',
      {
        cls: `air-cell air-group ${changed ? 'air-changed' : 'air-same'}`,
        title: `${run.length} clean-up passes (canonicalize/cse/dce) (#${run[0]}–#${run[run.length - 1]}, ${changed} changed${timed.length ? `, ${formatMs(ms)}` : ''}): click to expand`
      },
      `×${run.length}`
    );
    if (timed.length) {
      g.appendChild(this.msBar(dumps[0].stage, ms));
    }
    g.addEventListener('click', () => this.onExpand(run[0]));
    for (const i of run) {
      this.cells.set(i, g);
    }
    return g;
  }

  /** A bar under a cell, its height the pass time against the slowest pass of the stage. */
  private msBar(stage: number, ms: number): HTMLElement {
    const max = this.model.stageMs.get(stage)?.max ?? 0;
    const bar = h('span', { cls: 'air-msbar' });
    bar.style.height = `${max > 0 ? Math.min(MSBAR_MAX, Math.max(1, Math.round((MSBAR_MAX * ms) / max))) : 1}px`;
    return bar;
  }

  setCurrent(i: number): void {
    this.current?.classList.remove('air-current');
    this.current = this.cells.get(i) ?? null;
    if (this.current) {
      this.current.classList.add('air-current');
      this.scheduleReveal();
    }
  }

  /** Scroll the current cell into the strip's view, reading layout in the next frame only. */
  private scheduleReveal(): void {
    if (this.revealFrame !== 0) {
      return;
    }
    this.revealFrame = requestAnimationFrame(() => {
      this.revealFrame = 0;
      if (!this.current || this.node.scrollHeight <= this.node.clientHeight) {
        return;
      }
      const r = this.current.getBoundingClientRect();
      const box = this.node.getBoundingClientRect();
      if (r.top < box.top || r.bottom > box.bottom) {
        this.node.scrollTop += r.top - box.top - box.height / 2;
      }
    });
  }

  /** Draw search hits per pass as a bar inside each cell; counts are per snapshot. */
  setHits(counts: Int32Array | null): void {
    let max = 1;
    if (counts) {
      for (const c of counts) {
        max = Math.max(max, c);
      }
    }
    for (const [i, c] of this.cells) {
      c.querySelector('.air-hitbar')?.remove();
      c.classList.remove('air-hit');
      const n = counts ? counts[this.model.p.dumps[i].snap] : 0;
      if (n > 0) {
        const bar = h('span', { cls: 'air-hitbar' });
        bar.style.height = `${Math.max(20, Math.round((100 * Math.log1p(n)) / Math.log1p(max)))}%`;
        c.classList.add('air-hit');
        c.appendChild(bar);
      }
    }
  }
}
