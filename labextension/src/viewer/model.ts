// Viewer state that does not touch the DOM: filters, navigation order, cached snapshot views.

import { LineTable, type NormFlags, type SnapView } from './normalize';
import { type DiffEntry, PassDiffs, type ViewMode } from './passdiff';
import type { Dump, Message, Note, Payload } from './payload';
import type { RowSet } from './rows';

export type { DiffEntry, ViewMode } from './passdiff';
export const VIEW_MODES: ViewMode[] = ['ir', 'unified', 'split'];

/**
 * Clean-up passes: canonicalize and its dialect variants (canonicalize-ext,
 * scf-canonicalize-iter-arg), cse, dce. Pipelines run them between the passes that matter and
 * once per function, so consecutive ones collapse into one entry when asked.
 */
const CLEANUP = /^(?:[\w.]+-)?(?:canonicaliz(?:e|er)(?:-[\w-]+)?|cse|symbol-dce|dce)$/i;

export function isCleanup(d: Dump): boolean {
  return CLEANUP.test(d.arg) || CLEANUP.test(d.pass);
}

export function passLabel(d: Dump): string {
  return d.arg || d.pass;
}

/**
 * Fuzzy match as Compiler Explorer's pass filter: every character of the query, in order, case
 * ignored (`hvsync` finds `hivm-graph-sync-solver`); words separated by spaces each match.
 */
export function fuzzyMatch(query: string, text: string): boolean {
  const t = text.toLowerCase();
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter(w => w !== '')
    .every(w => {
      let at = 0;
      for (const ch of w) {
        at = t.indexOf(ch, at);
        if (at < 0) {
          return false;
        }
        at++;
      }
      return true;
    });
}

/** A shown entry of the pass list and strip: one dump, or a collapsed run of cleanup passes. */
export type PassEntry = { dump: number } | { run: number[] };

/** A pass time as people read it: `27.4 ms`, `312 ms`, `<0.1 ms`. */
export function formatMs(ms: number): string {
  if (ms < 0.05) {
    return '<0.1 ms';
  }
  return `${ms >= 100 ? ms.toFixed(0) : ms.toFixed(1)} ms`;
}

export class Model {
  readonly table: LineTable;
  cur = 0;
  view: ViewMode = 'ir';
  norm: NormFlags = { dropLoc: false, canonSsa: false };
  /** Diff views drop `loc(...)` unless asked (every line ends in one; the change is elsewhere). */
  diffLocs = false;
  scope = '';
  filter = '';
  hideUnchanged = false;
  collapseCleanup = false;
  /** First dumps of cleanup runs the user expanded while collapsing is on. */
  readonly expanded = new Set<number>();
  notes: Note[];
  /** The op census drawn (ops and their count per snapshot), shown in the chart and the pass list. */
  census: { ops: string[]; counts: Int32Array[] } | null = null;
  private orderCache: number[] | null = null;
  /** Snapshot views, diffs and rows, cached. */
  readonly diffs: PassDiffs;
  /** Per stage: the longest and the summed pass time (stages with no timing are absent). */
  readonly stageMs = new Map<number, { max: number; total: number }>();

  /** First dump of each stage. */
  private readonly firstOfStage = new Map<number, number>();

  constructor(readonly p: Payload) {
    this.table = new LineTable(p.lines);
    this.diffs = new PassDiffs(this.table, p.snapshots);
    for (const d of p.dumps) {
      if (!this.firstOfStage.has(d.stage)) {
        this.firstOfStage.set(d.stage, d.i);
      }
    }
    this.notes = p.notes.slice();
    for (const d of p.dumps) {
      if (d.ms !== null) {
        const t = this.stageMs.get(d.stage) ?? { max: 0, total: 0 };
        t.max = Math.max(t.max, d.ms);
        t.total += d.ms;
        this.stageMs.set(d.stage, t);
      }
    }
  }

  /**
   * The dump a compiler message belongs to: the one it follows in its stage's log, or, for a
   * message printed before its stage's first pass (or by a stage with no dumps), that first
   * pass (the last dump of the Run). Never a pass of another stage.
   */
  messageDump(m: Message): number {
    const first = this.firstOfStage.get(m.stage);
    if (m.after >= 0 && this.p.dumps[m.after].stage === m.stage) {
      return m.after;
    }
    return first ?? this.p.dumps.length - 1;
  }

  /** Messages that belong to dump i, in log order. */
  messagesOf(i: number): Message[] {
    return this.p.messages.filter(m => this.messageDump(m) === i);
  }

  scopes(): string[] {
    return [...new Set(this.p.dumps.map(d => d.scope))];
  }

  invalidateOrder(): void {
    this.orderCache = null;
  }

  /** Dump indices that can be stepped to under the current filters, in timeline order. */
  order(): number[] {
    if (this.orderCache === null) {
      const f = this.filter.trim();
      this.orderCache = this.p.dumps
        .filter(d => (this.scope === '' || d.scope === this.scope) && (!this.hideUnchanged || d.changed || d.phase === 'failed') && (f === '' || fuzzyMatch(f, d.arg) || fuzzyMatch(f, d.pass)))
        .map(d => d.i);
    }
    return this.orderCache;
  }

  /** Next (dir=1) or previous (dir=-1) dump in the order, optionally only changed ones. */
  step(dir: 1 | -1, changedOnly: boolean): number | null {
    const order = this.order();
    const ok = (i: number): boolean => !changedOnly || this.p.dumps[i].changed || this.p.dumps[i].phase === 'failed';
    if (dir === 1) {
      for (const i of order) {
        if (i > this.cur && ok(i)) {
          return i;
        }
      }
    } else {
      for (let k = order.length - 1; k >= 0; k--) {
        if (order[k] < this.cur && ok(order[k])) {
          return order[k];
        }
      }
    }
    return null;
  }

  /**
   * The pass `query` names: `#12` or `12` is dump 12; otherwise the next shown pass after the
   * current one (wrapping) whose name or argument contains the query, else matches it fuzzily.
   */
  findPass(query: string): number | null {
    const q = query.trim();
    if (/^#?\d+$/.test(q)) {
      const i = Number(q.replace('#', ''));
      return i < this.p.dumps.length ? i : null;
    }
    if (q === '') {
      return null;
    }
    const order = this.order();
    const start = Math.max(
      0,
      order.findIndex(i => i > this.cur)
    );
    const ring = [...order.slice(start), ...order.slice(0, start)];
    const low = q.toLowerCase();
    const named = (d: Dump): string => `${d.arg} ${d.pass}`.toLowerCase();
    const hit = ring.find(i => named(this.p.dumps[i]).includes(low)) ?? ring.find(i => fuzzyMatch(q, this.p.dumps[i].arg) || fuzzyMatch(q, this.p.dumps[i].pass));
    return hit ?? null;
  }

  /** The shown dumps of one stage, runs of 2+ clean-up passes collapsed when asked. */
  entries(dumps: number[]): PassEntry[] {
    const out: PassEntry[] = [];
    for (let k = 0; k < dumps.length; k++) {
      let end = k;
      while (end < dumps.length && isCleanup(this.p.dumps[dumps[end]])) {
        end++;
      }
      if (this.collapseCleanup && end - k >= 2 && !this.expanded.has(dumps[k])) {
        out.push({ run: dumps.slice(k, end) });
        k = end - 1;
      } else {
        out.push({ dump: dumps[k] });
      }
    }
    return out;
  }

  /** The shown dumps grouped by stage, in timeline order. */
  byStage(): Map<number, number[]> {
    const byStage = new Map<number, number[]>();
    for (const i of this.order()) {
      const s = this.p.dumps[i].stage;
      const list = byStage.get(s);
      if (list) {
        list.push(i);
      } else {
        byStage.set(s, [i]);
      }
    }
    return byStage;
  }

  /**
   * For a Before dump printed inside the inliner's run (the MLIR inliner runs canonicalize on
   * each function it visits, and Before dumps of that nested pipeline come between its own
   * Before dump and the next module-level one): the inliner's dump and the first dump after
   * the inliner's run. null otherwise. The change up to that dump is the inliner's and the
   * nested passes' together, not the nested pass's alone.
   */
  insideInliner(i: number): { inliner: number; after: number } | null {
    const d = this.p.dumps[i];
    if (d.phase !== 'before' || d.scope === 'builtin.module' || passLabel(d) === 'inline') {
      return null;
    }
    let j = i - 1;
    while (j >= 0 && this.p.dumps[j].stage === d.stage && this.p.dumps[j].scope !== 'builtin.module') {
      j--;
    }
    const head = j >= 0 ? this.p.dumps[j] : null;
    if (!head || head.stage !== d.stage || head.phase !== 'before' || passLabel(head) !== 'inline') {
      return null;
    }
    let k = i + 1;
    while (k < this.p.dumps.length && this.p.dumps[k].stage === d.stage && this.p.dumps[k].scope !== 'builtin.module') {
      k++;
    }
    return k < this.p.dumps.length && this.p.dumps[k].stage === d.stage ? { inliner: j, after: k } : null;
  }

  /** Stages with no dump at all (a stage a cheap record planned, one that printed nothing). */
  stagesWithoutDumps(): number[] {
    return this.p.stages.map((_, s) => s).filter(s => !this.firstOfStage.has(s));
  }

  /** Lines the pass added to (+) or removed from (−) the IR, by line count. */
  deltaLines(i: number): number | null {
    const [prev, d] = this.changeOf(i);
    return prev === null ? null : this.p.snapshots[d.snap].length - this.p.snapshots[prev.snap].length;
  }

  /** The normalisation the current view draws with: diff views hide locations by default. */
  shownNorm(): NormFlags {
    return this.view === 'ir' || this.diffLocs || this.norm.dropLoc ? this.norm : { ...this.norm, dropLoc: true };
  }

  /** True when the current view hides locations the IR has (a row's tooltip then shows them). */
  locsHidden(): boolean {
    return this.shownNorm().dropLoc;
  }

  snapView(snap: number): SnapView {
    return this.diffs.snapView(snap, this.shownNorm());
  }

  /**
   * The two states that show what dump `i`'s pass did (Timeline.change): the scope's previous
   * state and the dump itself; for a Before dump (upstream Triton prints only those), the dump
   * itself and the next state of its scope, which is the pass's output.
   */
  changeOf(i: number): [Dump | null, Dump] {
    const d = this.p.dumps[i];
    if (d.phase === 'before' && d.next >= 0) {
      return [d, this.p.dumps[d.next]];
    }
    return [d.prev >= 0 ? this.p.dumps[d.prev] : null, d];
  }

  /** The Dump whose IR the views show for dump `i`: itself, or a Before dump's pass output. */
  shown(i: number = this.cur): Dump {
    return this.changeOf(i)[1];
  }

  /** The state before dump `i`'s pass and the edit script to its output (cached). */
  diffOf(i: number = this.cur): DiffEntry {
    const [prevDump, d] = this.changeOf(i);
    return this.diffs.diff(prevDump ? prevDump.snap : -1, d.snap, this.shownNorm());
  }

  /** Rows of dump `i`'s pass in the current view. */
  rowsOf(i: number = this.cur): { diff: DiffEntry; rows: RowSet } {
    const diff = this.diffOf(i);
    return { diff, rows: this.diffs.rows(diff, this.view) };
  }

  /** Rows of the current pass in the current view. */
  currentRows(): { diff: DiffEntry; rows: RowSet } {
    return this.rowsOf(this.cur);
  }

  notesOf(dump: number): Note[] {
    return this.notes.filter(n => n.dump === dump);
  }
}
