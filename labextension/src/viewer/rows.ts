// Rows for the three views (IR, unified diff, side-by-side) built from an edit script. The IR
// view of a large snapshot is a RowSet that makes cells only for the rows that are drawn.

import { DEL, type Edit, EQ, INS, wordDiff } from './diff';
import type { LineTable, SnapView } from './normalize';

export type RowKind = 'ctx' | 'add' | 'del' | 'gap';

export interface Cell {
  kind: RowKind;
  /** Index of the line in its shown snapshot view (0-based). */
  no: number;
  /** Index of the line in the original snapshot, for notes and the source map. */
  line: number;
  /** Line-table id of the text (same id, same text). */
  id: number;
  text: string;
  /** Paired cell on the other side of a change, for word-level marks. */
  pair: Cell | null;
  marks: Array<[number, number]> | null;
}

export interface Row {
  left: Cell | null;
  right: Cell | null;
  /** Label of a gap row (collapsed unchanged lines). */
  gap: string | null;
}

const CONTEXT = 3;

function cell(kind: RowKind, no: number, view: SnapView, table: LineTable): Cell {
  const id = view.ids[no];
  return { kind, no, line: view.orig[no], id, text: table.text(id), pair: null, marks: null };
}

/** The rows of one view; row(i) may build the row on first use. */
export interface RowSet {
  readonly length: number;
  row(i: number): Row;
  /** Row showing line `no` of the current view on its current side, or -1. */
  rowOfNo(no: number): number;
  /** First row holding an added line, or -1. */
  firstAdded(): number;
  /** Characters in the longest line of either side (for the sideways scroll range). */
  longest(): number;
}

/** A RowSet over rows built up front (the diff views: hunks only, small). */
export class ArrayRows implements RowSet {
  private widest = -1;

  constructor(private readonly rows: Row[]) {}

  longest(): number {
    if (this.widest < 0) {
      this.widest = 0;
      for (const r of this.rows) {
        this.widest = Math.max(this.widest, r.left?.text.length ?? 0, r.right?.text.length ?? 0);
      }
    }
    return this.widest;
  }

  get length(): number {
    return this.rows.length;
  }

  row(i: number): Row {
    return this.rows[i];
  }

  rowOfNo(no: number): number {
    return this.rows.findIndex(r => r.right !== null && r.right.no === no);
  }

  firstAdded(): number {
    return this.rows.findIndex(r => r.right !== null && r.right.kind === 'add');
  }
}

/** First row whose current side shows one of these original lines (0: none does). */
export function firstRowOf(rows: RowSet, lines: Set<number>): number {
  for (let k = 0; k < rows.length; k++) {
    const c = rows.row(k).right;
    if (c && lines.has(c.line)) {
      return k;
    }
  }
  return 0;
}

/** Which lines of the new view an edit script inserted (1) or kept (0). */
export function addedMask(edits: Edit[], newLength: number): Uint8Array {
  const mask = new Uint8Array(newLength);
  for (const e of edits) {
    if (e.k === INS) {
      mask[e.b] = 1;
    }
  }
  return mask;
}

/**
 * The IR view: row i is line i of the current snapshot view (an edit script lists the new
 * side's lines in order), marked added when the script inserted it. Cells are made when drawn.
 */
export class IrRows implements RowSet {
  private readonly made = new Map<number, Row>();
  private widest = -1;

  constructor(
    private readonly added: Uint8Array,
    private readonly view: SnapView,
    private readonly table: LineTable
  ) {}

  longest(): number {
    if (this.widest < 0) {
      this.widest = this.table.longest(this.view.ids);
    }
    return this.widest;
  }

  get length(): number {
    return this.added.length;
  }

  row(i: number): Row {
    let r = this.made.get(i);
    if (r === undefined) {
      r = { left: null, right: cell(this.added[i] ? 'add' : 'ctx', i, this.view, this.table), gap: null };
      this.made.set(i, r);
    }
    return r;
  }

  rowOfNo(no: number): number {
    return no >= 0 && no < this.added.length ? no : -1;
  }

  firstAdded(): number {
    return this.added.indexOf(1);
  }
}

/** Word marks for a changed cell, computed on first draw. */
export function marksOf(c: Cell): Array<[number, number]> | null {
  if (c.marks === null && c.pair !== null) {
    const [o, n] = c.kind === 'del' ? [c, c.pair] : [c.pair, c];
    const wd = wordDiff(o.text, n.text);
    o.marks = wd.old;
    n.marks = wd.new;
  }
  return c.marks;
}

interface Run {
  start: number;
  end: number;
}

function changeRuns(edits: Edit[]): Run[] {
  const runs: Run[] = [];
  for (let i = 0; i < edits.length; i++) {
    if (edits[i].k === EQ) {
      continue;
    }
    let j = i;
    while (j < edits.length && edits[j].k !== EQ) {
      j++;
    }
    runs.push({ start: i, end: j });
    i = j;
  }
  return runs;
}

function pairCells(dels: Cell[], adds: Cell[]): void {
  const n = Math.min(dels.length, adds.length);
  for (let k = 0; k < n; k++) {
    dels[k].pair = adds[k];
    adds[k].pair = dels[k];
  }
}

function gapRow(n: number): Row {
  return { left: null, right: null, gap: `⋯ ${n} unchanged line${n === 1 ? '' : 's'}` };
}

/** Hunks with context; split=true pairs deletions and insertions side by side. */
export function diffRows(edits: Edit[], oldV: SnapView, newV: SnapView, table: LineTable, split: boolean): Row[] {
  const rows: Row[] = [];
  let shown = 0;
  const emitContext = (from: number, to: number): void => {
    for (let i = from; i < to; i++) {
      const e = edits[i];
      const l = cell('ctx', e.a, oldV, table);
      const r = cell('ctx', e.b, newV, table);
      rows.push(split ? { left: l, right: r, gap: null } : { left: null, right: r, gap: null });
    }
  };
  for (const run of changeRuns(edits)) {
    const ctxFrom = Math.max(shown, run.start - CONTEXT);
    if (ctxFrom > shown) {
      rows.push(gapRow(ctxFrom - shown));
    }
    emitContext(ctxFrom, run.start);
    const dels: Cell[] = [];
    const adds: Cell[] = [];
    for (let i = run.start; i < run.end; i++) {
      const e = edits[i];
      if (e.k === DEL) {
        dels.push(cell('del', e.a, oldV, table));
      } else {
        adds.push(cell('add', e.b, newV, table));
      }
    }
    pairCells(dels, adds);
    if (split) {
      for (let k = 0; k < Math.max(dels.length, adds.length); k++) {
        rows.push({ left: dels[k] ?? null, right: adds[k] ?? null, gap: null });
      }
    } else {
      for (const c of dels) {
        rows.push({ left: c, right: null, gap: null });
      }
      for (const c of adds) {
        rows.push({ left: null, right: c, gap: null });
      }
    }
    let ctxTo = run.end;
    while (ctxTo < edits.length && ctxTo < run.end + CONTEXT && edits[ctxTo].k === EQ) {
      ctxTo++;
    }
    emitContext(run.end, ctxTo);
    shown = ctxTo;
  }
  if (shown < edits.length && rows.length > 0) {
    rows.push(gapRow(edits.length - shown));
  }
  return rows;
}

export function countChanges(edits: Edit[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const e of edits) {
    if (e.k === INS) {
      added++;
    } else if (e.k === DEL) {
      removed++;
    }
  }
  return { added, removed };
}
