// The op census chart: how many of each op (several at once) every shown pass holds, as
// grouped bars with a y axis, the first and last pass named under it, the value of each op
// for the pass under the cursor, and a click to go there.

import { clear, h, svg } from './dom';
import { type Model, passLabel } from './model';
import { countPerSnapshot, makeMatcher } from './search';
import { shownText } from './text';

const H = 60;
/** At least this many slots across: a filter leaving 2 passes draws 2 thin bars, not 2 blocks. */
const MIN_SLOTS = 40;

interface Drawn {
  key: string;
  order: number[];
  slots: number;
  marker: SVGElement;
}

export class Census {
  readonly node: HTMLDivElement;
  readonly info = h('span', { cls: 'air-census-info', aria: { live: 'polite' } });
  private readonly plot: HTMLDivElement;
  private readonly axis: HTMLDivElement;
  private readonly under: HTMLDivElement;
  private readonly legend: HTMLDivElement;
  private ops: string[] = [];
  private counts: Int32Array[] = [];
  private drawn: Drawn | null = null;

  constructor(
    private readonly model: Model,
    private readonly onJump: (dump: number) => void
  ) {
    this.plot = h('div', { cls: 'air-census-plot', role: 'img', aria: { label: 'op census per pass' } });
    this.axis = h('div', { cls: 'air-census-axis' });
    this.under = h('div', { cls: 'air-census-under' });
    this.legend = h('div', { cls: 'air-census-legend' });
    this.node = h('div', { cls: 'air-census-chart' }, this.legend, h('div', { cls: 'air-census-body' }, this.axis, this.plot), this.under);
    this.plot.addEventListener('click', ev => this.pick(ev, true));
    this.plot.addEventListener('mousemove', ev => this.pick(ev, false));
    this.plot.addEventListener('mouseleave', () => this.update());
  }

  /** Count the ops (names separated by commas or spaces) in every snapshot. */
  set(query: string): string[] {
    this.ops = query.split(/[\s,]+/).filter(o => o !== '');
    const bad: string[] = [];
    this.counts = [];
    const ops: string[] = [];
    for (const op of this.ops) {
      const m = makeMatcher('op', op);
      if (typeof m === 'string') {
        bad.push(op);
        continue;
      }
      const c = countPerSnapshot(this.model.p.lines, this.model.p.snapshots, m);
      if (c.some(n => n > 0)) {
        ops.push(op);
        this.counts.push(c);
      } else {
        bad.push(op);
      }
    }
    this.ops = ops;
    this.drawn = null;
    return bad;
  }

  private value(j: number, dump: number): number {
    return this.counts[j][this.model.p.dumps[dump].snap];
  }

  /** Redraw when the census or the shown passes changed; a step only moves the marker. */
  update(): void {
    if (this.ops.length === 0) {
      clear(this.plot);
      clear(this.axis);
      clear(this.under);
      clear(this.legend);
      this.node.classList.add('air-hidden');
      this.drawn = null;
      return;
    }
    this.node.classList.remove('air-hidden');
    const order = this.model.order();
    const key = this.ops.join(',');
    if (this.drawn === null || this.drawn.key !== key || this.drawn.order !== order) {
      this.draw(order, key);
    }
    const k = order.indexOf(this.model.cur);
    const d = this.drawn as Drawn;
    d.marker.setAttribute('x1', String(k + 0.5));
    d.marker.setAttribute('x2', String(k + 0.5));
    d.marker.setAttribute('visibility', k >= 0 ? 'visible' : 'hidden');
    this.say(this.model.cur, 'here');
  }

  private draw(order: number[], key: string): void {
    clear(this.plot);
    clear(this.axis);
    clear(this.under);
    clear(this.legend);
    let max = 1;
    for (let j = 0; j < this.ops.length; j++) {
      for (const i of order) {
        max = Math.max(max, this.value(j, i));
      }
    }
    const slots = Math.max(order.length, MIN_SLOTS);
    const chart = svg('svg', { viewBox: `0 0 ${slots} ${H}`, preserveAspectRatio: 'none', class: 'air-census-svg' });
    const w = 0.8 / this.ops.length;
    order.forEach((i, k) => {
      for (let j = 0; j < this.ops.length; j++) {
        const bh = (this.value(j, i) / max) * (H - 2);
        chart.appendChild(svg('rect', { x: k + 0.1 + j * w, y: H - bh, width: w, height: bh, class: `air-bar air-bar-op${j % 4}` }));
      }
    });
    const marker = svg('line', { x1: 0, x2: 0, y1: 0, y2: H, class: 'air-census-marker' });
    chart.appendChild(marker);
    this.plot.appendChild(chart);
    this.axis.append(h('span', { cls: 'air-axis-max' }, String(max)), h('span', { cls: 'air-axis-mid' }, String(Math.round(max / 2))), h('span', { cls: 'air-axis-zero' }, '0'));
    if (order.length) {
      const last = order[order.length - 1];
      const end = h('span', { cls: 'air-axis-last' }, `#${last}`);
      end.style.left = `${(100 * order.length) / slots}%`;
      this.under.append(h('span', { cls: 'air-axis-first' }, `#${order[0]}`), end);
    }
    this.ops.forEach((op, j) => {
      this.legend.appendChild(h('span', { cls: `air-legend air-legend-op${j % 4}` }, shownText(op)));
    });
    this.drawn = { key, order, slots, marker };
  }

  /** `tt.load: 3 here · max 8 over 14 passes`, or the values of the pass under the cursor. */
  private say(dump: number, where: 'here' | 'hover'): void {
    const d = this.model.p.dumps[dump];
    const short = (op: string): string => op.replace(/^hivm\.hir\./, '');
    const values = this.ops.map((_, j) => this.value(j, dump));
    const what = this.ops.length === 1 ? `${this.ops[0]}: ${values[0]}` : this.ops.map((op, j) => `${short(op)} ${values[j]}`).join(' · ');
    const drawn = this.drawn;
    const max = drawn ? Math.max(1, ...this.ops.flatMap((_, j) => drawn.order.map(i => this.value(j, i)))) : 0;
    this.info.textContent = shownText(where === 'here' ? `${what} here · max ${max} over ${drawn ? drawn.order.length : 0} passes` : `#${dump} ${passLabel(d)}: ${what}`);
  }

  private pick(ev: MouseEvent, jump: boolean): void {
    const d = this.drawn;
    const box = this.plot.getBoundingClientRect();
    if (!d || d.order.length === 0 || box.width === 0) {
      return;
    }
    const k = Math.floor(((ev.clientX - box.left) / box.width) * d.slots);
    if (k < 0 || k >= d.order.length) {
      return;
    }
    if (jump) {
      this.onJump(d.order[k]);
    } else {
      this.say(d.order[k], 'hover');
    }
  }
}
