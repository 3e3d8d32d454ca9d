// What a pass changed, computed once and kept: the normalised views of snapshots, the edit
// script between a pass's two states and the rows of each view. Steps read from here; the
// passes next to the shown one are computed ahead, in idle time (ahead()).

import { diffIds, type Edit } from './diff';
import { tokenize } from './highlight';
import { type LineTable, type NormFlags, normalizeSnapshot, normKey, type SnapView } from './normalize';
import { ArrayRows, addedMask, countChanges, diffRows, IrRows, marksOf, type RowSet } from './rows';

export type ViewMode = 'ir' | 'unified' | 'split';

/** What a pass changed, computed once per (previous snapshot, snapshot, normalisation). */
export interface DiffEntry {
  prev: SnapView;
  cur: SnapView;
  edits: Edit[];
  hasPrev: boolean;
  added: number;
  removed: number;
  /** Rows per view, made on first use and kept with the diff. */
  rows: Map<ViewMode, RowSet>;
}

/** Diffs kept for stepping back and forth; the least recently used go first. */
const DIFF_CACHE = 96;
/** Rows of a pass computed ahead (word marks, tokens): about a view's worth from its top. */
const AHEAD_ROWS = 64;

export class PassDiffs {
  private views = new Map<string, SnapView>();
  private diffs = new Map<string, DiffEntry>();

  constructor(
    private readonly table: LineTable,
    private readonly snapshots: number[][]
  ) {}

  snapView(snap: number, norm: NormFlags): SnapView {
    const key = `${snap}|${normKey(norm)}`;
    let v = this.views.get(key);
    if (!v) {
      v = normalizeSnapshot(this.table, this.snapshots[snap], norm);
      this.views.set(key, v);
    }
    return v;
  }

  /** The edit script from snapshot `prev` (-1: nothing before) to `snap` (cached). */
  diff(prev: number, snap: number, norm: NormFlags): DiffEntry {
    const key = `${prev}>${snap}|${normKey(norm)}`;
    let entry = this.diffs.get(key);
    if (entry) {
      this.diffs.delete(key); // re-inserted below: Map order is the recency order
    } else {
      const cur = this.snapView(snap, norm);
      const before = prev >= 0 ? this.snapView(prev, norm) : { ids: [], orig: [] };
      const edits = diffIds(before.ids, cur.ids);
      entry = { prev: before, cur, edits, hasPrev: prev >= 0, ...countChanges(edits), rows: new Map() };
      if (this.diffs.size >= DIFF_CACHE) {
        this.diffs.delete(this.diffs.keys().next().value as string);
      }
    }
    this.diffs.set(key, entry);
    return entry;
  }

  /** The rows of one view of a diff (made once, kept with it). */
  rows(diff: DiffEntry, view: ViewMode): RowSet {
    let rows = diff.rows.get(view);
    if (!rows) {
      rows = view === 'ir' ? new IrRows(addedMask(diff.edits, diff.cur.ids.length), diff.cur, this.table) : new ArrayRows(diffRows(diff.edits, diff.prev, diff.cur, this.table, view === 'split'));
      diff.rows.set(view, rows);
    }
    return rows;
  }

  /**
   * Work a step to this diff would do, done now (idle time): its rows, the word marks and the
   * tokens of the rows a step shows first (from `top`), so the step only draws them.
   */
  ahead(diff: DiffEntry, view: ViewMode, top: number): void {
    const rows = this.rows(diff, view);
    for (let i = Math.max(0, top); i < Math.min(rows.length, top + AHEAD_ROWS); i++) {
      const r = rows.row(i);
      for (const c of [r.left, r.right]) {
        if (c !== null) {
          marksOf(c);
          tokenize(c.text);
        }
      }
    }
  }
}
