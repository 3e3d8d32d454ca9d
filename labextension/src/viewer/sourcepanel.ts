// Source panel: the kernel's file (or notebook cell) with its own line numbers, 1-based, the
// numbers IR locations carry; a click on a line selects the IR it produced.

import { clear, h } from './dom';
import { type Model, passLabel } from './model';
import { appendVisible, shownText } from './text';

const NO_MAP: Array<[number, number]> = [];

export class SourcePanel {
  readonly node: HTMLDivElement;
  private readonly list: HTMLDivElement;
  private readonly info: HTMLDivElement;
  selected: number | null = null;
  private rows: HTMLElement[] = [];
  private drawnMap: Array<[number, number]> | null = null;

  constructor(
    private readonly model: Model,
    private readonly onSelect: () => void
  ) {
    const src = model.p.source;
    this.list = h('div', { cls: 'air-src-lines' });
    this.info = h('div', { cls: 'air-src-info' }, 'Click a line to see the ops it produced.');
    this.node = h('div', { cls: 'air-source' }, h('div', { cls: 'air-panel-title', title: src ? shownText(src.file) : '' }, src ? shownText(src.file) || 'source' : 'source'), this.info, this.list);
  }

  /** Original line indices in a snapshot that map to a Python line. */
  irLinesOf(snap: number, pyLine: number): Set<number> {
    const out = new Set<number>();
    for (const [ir, py] of this.model.p.srcmap[snap] ?? []) {
      if (py === pyLine) {
        out.add(ir);
      }
    }
    return out;
  }

  /** Counts per Python line for the current pass; the rows are made once and only changed. */
  update(): void {
    const src = this.model.p.source;
    if (!src) {
      return;
    }
    if (this.rows.length === 0) {
      this.build(src.text, src.first_line);
    }
    const snap = this.model.shown().snap;
    const map = this.model.p.srcmap[snap] ?? NO_MAP;
    if (map !== this.drawnMap) {
      this.drawnMap = map;
      const perLine = new Map<number, number>();
      for (const [, py] of map) {
        perLine.set(py, (perLine.get(py) ?? 0) + 1);
      }
      this.rows.forEach((row, k) => {
        const n = perLine.get(k + 1) ?? 0;
        const text = n ? String(n) : '';
        const count = row.children[1] as HTMLElement;
        if (count.textContent !== text) {
          count.textContent = text;
          row.classList.toggle('air-src-has', n > 0);
        }
      });
    }
    this.rows.forEach((row, k) => {
      row.classList.toggle('air-src-sel', k + 1 === this.selected);
    });
    this.info.textContent = this.selected === null ? 'Click a line to see the ops it produced.' : this.describe(this.selected);
  }

  /** One row per line of the text, numbered from 1; the kernel's `def` line marked and shown. */
  private build(text: string, defLine: number): void {
    clear(this.list);
    this.rows = text.split('\n').map((line, k) => {
      const py = k + 1;
      const code = h('span', { cls: 'air-code' });
      appendVisible(code, line);
      const row = h(
        'div',
        { cls: py === defLine ? 'air-src-line air-src-def' : 'air-src-line', data: { line: String(py) } },
        h('span', { cls: 'air-gut' }, String(py)),
        h('span', { cls: 'air-src-count' }),
        code
      );
      row.addEventListener('click', () => {
        this.selected = this.selected === py ? null : py;
        this.onSelect();
      });
      return row;
    });
    this.list.append(...this.rows);
    const def = this.rows[defLine - 1];
    if (def && defLine > 1) {
      requestAnimationFrame(() => {
        this.node.scrollTop = Math.max(0, def.offsetTop - this.list.offsetTop - 18);
      });
    }
  }

  private describe(py: number): string {
    const { p, cur } = this.model;
    const d = p.dumps[cur];
    const here = this.irLinesOf(this.model.shown().snap, py).size;
    if (here === 0 && !p.srcmap.some(m => m.some(([, l]) => l === py))) {
      return `line ${py}: no IR in any pass carries this line`;
    }
    for (let j = cur + 1; j < p.dumps.length; j++) {
      const dj = p.dumps[j];
      if (dj.scope === d.scope && this.irLinesOf(this.model.shown(j).snap, py).size === 0) {
        return `line ${py}: ${here} IR lines here; they vanish at #${j} ${passLabel(dj)}`;
      }
    }
    return `line ${py}: ${here} IR lines here; still present at the last pass`;
  }
}
