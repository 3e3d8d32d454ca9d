// The IR pane: highlighted IR, unified diff or side-by-side diff of the current pass, drawn
// through the virtual list with search, sync-lens, source-map and note decorations.

import { RowColours } from './colours';
import { h } from './dom';
import type { SyncFinding } from './payload';
import { ArrayRows, type Cell, marksOf, type RowSet } from './rows';
import type { Matcher } from './search';
import type { SyncMark } from './sync';
import { pipeColour } from './syncops';
import { shownText } from './text';
import { VirtualList } from './vlist';

export interface Decorations {
  matcher: Matcher | null;
  /** Sync ops of the current snapshot view, keyed by shown line index. */
  sync: Map<number, SyncMark> | null;
  /** Original line indices of the current snapshot produced by the selected source line. */
  srcLines: Set<number> | null;
  /** Original line indices of the current snapshot that carry a note. */
  noted: Map<number, string>;
  /** Sync-checker findings of the shown dump, by original line index (sync lens on). */
  findings: Map<number, SyncFinding[]> | null;
}

export interface PaneEvents {
  onLineNote(line: number): void;
  onJumpRow(row: number): void;
  /** The line as the IR has it (locations included), for a row's tooltip; null: none needed. */
  fullText(c: Cell, current: boolean): string | null;
}

/** Width in px of the gutter (and the sign column in the unified view) before the code. */
const GUTTER_PX = 54;
const SIGN_PX = 12;

export class IRPane {
  readonly list = new VirtualList('air-ir');
  /** The one horizontal scrollbar: both sides of a diff follow it (CSS --air-hx). */
  readonly hscroll: HTMLDivElement;
  private readonly hinner: HTMLDivElement;
  /** Labels over the two sides of a diff: which pass, which scope. */
  readonly labels: HTMLDivElement;
  private rows: RowSet = new ArrayRows([]);
  private split = false;
  private hit = -1;
  private deco: Decorations = { matcher: null, sync: null, srcLines: null, noted: new Map(), findings: null };
  private readonly colours: RowColours;

  constructor(private readonly events: PaneEvents) {
    this.hinner = h('div', { cls: 'air-hinner' });
    this.hscroll = h('div', { cls: 'air-hscroll', aria: { label: 'scroll the IR sideways' } }, this.hinner);
    this.hscroll.addEventListener('scroll', () => this.onSideways());
    this.colours = new RowColours(this.list, GUTTER_PX);
    this.list.onWidth = () => this.colours.resized(this.split) && this.list.refresh();
    this.list.node.addEventListener(
      'wheel',
      ev => {
        const dx = ev.deltaX !== 0 ? ev.deltaX : ev.shiftKey ? ev.deltaY : 0;
        if (dx !== 0) {
          ev.preventDefault();
          this.hscroll.scrollLeft += dx;
        }
      },
      { passive: false }
    );
    this.labels = h('div', { cls: 'air-difflabels' });
  }

  private onSideways(): void {
    const px = this.hscroll.scrollLeft;
    this.list.node.style.setProperty('--air-hx', `${px}px`);
    if (this.colours.scrolled(px, this.split)) {
      this.list.refresh();
    }
  }

  /** Set the labels of the two sides (null: the IR view, no labels). */
  setLabels(left: string | null, right: string | null, split: boolean): void {
    this.labels.textContent = '';
    if (left === null && right === null) {
      this.labels.classList.add('air-hidden');
      return;
    }
    this.labels.classList.remove('air-hidden');
    this.labels.classList.toggle('air-split', split);
    this.labels.append(h('span', { cls: 'air-label-left', title: left ?? '' }, `− ${left ?? 'nothing before'}`), h('span', { cls: 'air-label-right', title: right ?? '' }, `+ ${right ?? ''}`));
  }

  /** The scroll range of the longest line; drawn rows are moved by CSS, never re-rendered. */
  private sizeScroll(rows: RowSet, split: boolean): void {
    const longest = rows.longest();
    this.hinner.style.width = split ? `calc(50% + ${longest}ch + ${GUTTER_PX}px)` : `calc(${longest}ch + ${GUTTER_PX + SIGN_PX}px)`;
  }

  /** First row of the next (dir 1) or previous (-1) block of changed lines after `from`. */
  nextChange(from: number, dir: 1 | -1): number {
    const changed = (i: number): boolean => {
      const r = this.rows.row(i);
      return r.gap === null && ((r.right !== null && r.right.kind !== 'ctx') || (r.left !== null && r.left.kind !== 'ctx'));
    };
    for (let i = from + dir; i >= 0 && i < this.rows.length; i += dir) {
      if (changed(i) && (i === 0 || !changed(i - 1))) {
        return i;
      }
    }
    return -1;
  }

  show(rows: RowSet, split: boolean, deco: Decorations, top: number): void {
    this.rows = rows;
    if (split !== this.split) {
      this.split = split;
      this.list.node.classList.toggle('air-split', split);
    }
    this.deco = deco;
    this.sizeScroll(rows, split);
    this.colours.reset(split); // every row is drawn afresh here anyway
    this.colours.stepped();
    this.list.set(
      rows.length,
      i => this.renderRow(i),
      i => this.rowKey(i),
      top
    );
  }

  redecorate(deco: Decorations): void {
    this.deco = deco;
    this.list.refresh();
  }

  /** First row index whose current-side line is in the set, or -1. */
  firstRowWhere(pred: (c: Cell) => boolean): number {
    for (let i = 0; i < this.rows.length; i++) {
      const r = this.rows.row(i);
      if ((r.right !== null && pred(r.right)) || (r.left !== null && pred(r.left))) {
        return i;
      }
    }
    return -1;
  }

  /** The next row after `from` (dir 1) or before it (dir -1) whose current side passes. */
  nextRowWhere(from: number, dir: 1 | -1, pred: (c: Cell) => boolean): number {
    for (let i = from + dir; i >= 0 && i < this.rows.length; i += dir) {
      const c = this.rows.row(i).right;
      if (c !== null && pred(c)) {
        return i;
      }
    }
    return -1;
  }

  /** Rows before `end` whose current side passes. */
  countWhere(pred: (c: Cell) => boolean, end = this.rows.length): number {
    let n = 0;
    for (let i = 0; i < Math.min(end, this.rows.length); i++) {
      const c = this.rows.row(i).right;
      if (c !== null && pred(c)) {
        n++;
      }
    }
    return n;
  }

  /** Mark row `row` as the search hit stepped to (-1: none). */
  setHit(row: number): void {
    if (row !== this.hit) {
      this.hit = row;
      this.list.refresh();
    }
  }

  rowCount(): number {
    return this.rows.length;
  }

  /**
   * What a row looks like, as a string: its cells (kind, line, text id, the paired text that
   * its word marks come from, the tooltip) and the decorations on its current side. Equal
   * keys, equal nodes.
   */
  private rowKey(i: number): string {
    const r = this.rows.row(i);
    if (r.gap !== null) {
      return `g${i}:${r.gap}`;
    }
    if (i === this.hit) {
      return `h${i}`; // drawn afresh with its mark; the mark's row is never reused
    }
    const left = r.left === null ? '' : this.cellKey(r.left, false);
    const right = r.right === null ? '' : `${this.cellKey(r.right, true)}${this.decoKey(r.right)}`;
    const cols = `${this.colours.cols[0]}-${this.colours.cols[1]}`;
    return this.split ? `s${cols}${left}|${right}` : r.right === null ? `u${cols}${left}` : `u${cols}${right}`;
  }

  /** A cell's part of its row's key: its kind, place, text, pair and tooltip (the line as its pass has it). */
  private cellKey(c: Cell, current: boolean): string {
    const full = this.events.fullText(c, current);
    return `${c.kind[0]}${c.no}:${c.line}:${c.id}${c.pair === null ? '' : `~${c.pair.id}`}${full === null ? '' : `t${full}`}`;
  }

  private decoKey(c: Cell): string {
    const { matcher, sync, srcLines, noted, findings } = this.deco;
    let k = '';
    const found = findings?.get(c.line);
    if (found) {
      k += `f${found.map(f => `${f.severity}:${f.message}`).join('|')}`;
    }
    if (matcher?.test(c.text)) {
      k += 'm';
    }
    if (srcLines?.has(c.line)) {
      k += 's';
    }
    const note = noted.get(c.line);
    if (note !== undefined) {
      k += `n${note.length}:${note}`;
    }
    const mark = sync?.get(c.no);
    if (mark) {
      k += `y${mark.kind}:${mark.pipe}:${mark.pair ?? ''}:${mark.partner}`;
    }
    return k;
  }

  private renderRow(i: number): HTMLElement {
    const r = this.rows.row(i);
    if (r.gap !== null) {
      return h('div', { cls: 'air-row air-gap' }, h('span', { cls: 'air-code' }, r.gap));
    }
    if (this.split) {
      return h('div', { cls: i === this.hit ? 'air-row air-srow air-hit-cur' : 'air-row air-srow' }, this.half(r.left, false), this.half(r.right, true));
    }
    const c = (r.right ?? r.left) as Cell;
    const el = this.line(c, c === r.right, true);
    if (i === this.hit) {
      el.classList.add('air-hit-cur');
    }
    return el;
  }

  private half(c: Cell | null, current: boolean): HTMLElement {
    if (c === null) {
      return h('div', { cls: 'air-half air-blank' });
    }
    const el = this.line(c, current, false);
    el.classList.add('air-half');
    return el;
  }

  private line(c: Cell, current: boolean, unified: boolean): HTMLElement {
    const sign = c.kind === 'add' ? '+' : c.kind === 'del' ? '−' : ' ';
    const gutter = h('span', { cls: 'air-gut', title: current ? 'add a note on this line' : '' }, String(c.line + 1));
    const code = h('span', { cls: 'air-code' });
    this.colours.draw(code, c.text, () => marksOf(c));
    const el = h('div', { cls: `air-row air-${c.kind}` }, gutter, unified ? h('span', { cls: 'air-sign' }, sign) : null, code);
    const full = this.events.fullText(c, current);
    if (full !== null) {
      code.title = full;
    }
    if (current) {
      gutter.addEventListener('click', () => this.events.onLineNote(c.line));
      this.decorate(el, c);
    }
    return el;
  }

  private decorate(el: HTMLElement, c: Cell): void {
    const { matcher, sync, srcLines, noted, findings } = this.deco;
    if (matcher?.test(c.text)) {
      el.classList.add('air-match');
    }
    const found = findings?.get(c.line);
    if (found?.length) {
      const worst = found.some(f => f.severity === 'definite') ? 'definite' : 'possible';
      el.classList.add('air-finding', `air-finding-${worst}`);
      const text = found.map(f => `${f.severity}: ${f.kind ? `${f.kind}: ` : ''}${f.message}`).join('\n');
      el.insertBefore(h('span', { cls: 'air-finding-mark', title: shownText(text), aria: { label: shownText(text) } }, worst === 'definite' ? '✗' : '?'), el.lastChild);
    }
    if (srcLines?.has(c.line)) {
      el.classList.add('air-src');
    }
    const note = noted.get(c.line);
    if (note !== undefined) {
      el.classList.add('air-noted');
      el.title = note;
    }
    const mark = sync?.get(c.no);
    if (mark) {
      el.classList.add('air-sync', `air-sync-${mark.kind}`);
      if (mark.pipe) {
        el.classList.add(`air-pipe-${mark.pipe.toLowerCase()}`);
        el.style.setProperty('--air-pipe', pipeColour(mark.pipe));
      }
      const flag = mark.kind === 'set_flag' || mark.kind === 'wait_flag';
      const label = mark.pair ? `${mark.kind === 'wait_flag' ? '→' : '←'}${mark.pair}` : flag ? '!' : '·';
      const title = mark.pair
        ? `${mark.kind} #${mark.pair}${mark.pipe ? ` on ${mark.pipe}` : ''}: click to go to its ${mark.kind === 'wait_flag' ? 'set_flag' : 'wait_flag'}`
        : flag
          ? `${mark.kind} with no partner in this IR (loop-carried or runtime event ids pair across iterations)`
          : mark.kind;
      const badge = h('span', { cls: mark.pair ? 'air-pair' : flag ? 'air-pair air-unpaired' : 'air-pair air-syncop', title, aria: { label: title } }, label);
      if (mark.partner >= 0) {
        badge.addEventListener('click', () => this.events.onJumpRow(Math.max(0, this.rows.rowOfNo(mark.partner))));
      }
      // in the gutter's margin, never over the code
      el.insertBefore(badge, el.lastChild);
    }
  }
}
