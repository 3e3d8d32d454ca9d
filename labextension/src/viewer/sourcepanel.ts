// Source panel: the kernel's Python source; a click on a line selects the IR it produced.

import { clear, h } from './dom';
import { Model, passLabel } from './model';

export class SourcePanel {
  readonly node: HTMLDivElement;
  private readonly list: HTMLDivElement;
  private readonly info: HTMLDivElement;
  selected: number | null = null;

  constructor(private readonly model: Model, private readonly onSelect: () => void) {
    const src = model.p.source;
    this.list = h('div', { cls: 'air-src-lines' });
    this.info = h('div', { cls: 'air-src-info' }, 'Click a line to see the ops it produced.');
    this.node = h('div', { cls: 'air-source' }, h('div', { cls: 'air-panel-title' }, src ? src.file || 'source' : 'source'), this.info, this.list);
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

  update(): void {
    const src = this.model.p.source;
    clear(this.list);
    if (!src) {
      return;
    }
    const snap = this.model.p.dumps[this.model.cur].snap;
    const perLine = new Map<number, number>();
    for (const [, py] of this.model.p.srcmap[snap] ?? []) {
      perLine.set(py, (perLine.get(py) ?? 0) + 1);
    }
    src.text.split('\n').forEach((text, k) => {
      const py = src.first_line + k;
      const n = perLine.get(py) ?? 0;
      const row = h('div', { cls: `air-src-line${py === this.selected ? ' air-src-sel' : ''}${n ? ' air-src-has' : ''}`, data: { line: String(py) } },
        h('span', { cls: 'air-gut' }, String(py)), h('span', { cls: 'air-src-count' }, n ? String(n) : ''), h('span', { cls: 'air-code' }, text));
      row.addEventListener('click', () => {
        this.selected = this.selected === py ? null : py;
        this.onSelect();
      });
      this.list.appendChild(row);
    });
    this.info.textContent = this.selected === null ? 'Click a line to see the ops it produced.' : this.describe(this.selected);
  }

  private describe(py: number): string {
    const { p, cur } = this.model;
    const d = p.dumps[cur];
    const here = this.irLinesOf(d.snap, py).size;
    for (let j = cur + 1; j < p.dumps.length; j++) {
      const dj = p.dumps[j];
      if (dj.scope === d.scope && this.irLinesOf(dj.snap, py).size === 0) {
        return `line ${py}: ${here} IR lines here; they vanish at #${j} ${passLabel(dj)}`;
      }
    }
    return `line ${py}: ${here} IR lines here; still present at the last pass`;
  }
}
