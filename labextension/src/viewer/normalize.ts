// Normalisation of snapshots before display and diff: drop location lines and `loc(...)`
// suffixes, rename SSA values and blocks canonically (%0.., ^bb0..) in order of appearance,
// or the whole canonical form (canonical.ts).

import { canonicalLines } from './canonical';

export interface NormFlags {
  dropLoc: boolean;
  canonSsa: boolean;
  /**
   * The canonical form of analysis.canonical (canonical.ts): #map inlined, values named by
   * what defines them, function arguments by type and rank; shown with the lines' indentation.
   */
  canonical?: boolean;
}

/** A cache key part for the flags. */
export function normKey(f: NormFlags): string {
  return `${f.dropLoc ? 1 : 0}${f.canonSsa ? 1 : 0}${f.canonical ? 1 : 0}`;
}

/** A snapshot as shown: line ids (payload ids or interned normalised text) and their origin. */
export interface SnapView {
  ids: ArrayLike<number>;
  /** Index of each shown line in the original snapshot. */
  orig: ArrayLike<number>;
}

/** Payload lines plus normalised lines interned on demand, sharing one id space. */
export class LineTable {
  private map: Map<string, number> | null = null;
  private extra: string[] = [];
  private baseLengths: Int32Array | null = null;
  /** Per line id: the id of the line with its locations dropped (-1: a #loc line, -2: not yet). */
  private noLoc = new Int32Array(0);

  constructor(private readonly base: string[]) {}

  text(id: number): string {
    return id < this.base.length ? this.base[id] : this.extra[id - this.base.length];
  }

  /** Characters in the longest of these lines (the payload's lengths are counted once). */
  longest(ids: ArrayLike<number>): number {
    if (this.baseLengths === null) {
      this.baseLengths = Int32Array.from(this.base, s => s.length);
    }
    const lengths = this.baseLengths;
    const n = lengths.length;
    let widest = 0;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      const len = id < n ? lengths[id] : this.extra[id - n].length;
      if (len > widest) {
        widest = len;
      }
    }
    return widest;
  }

  /** The id of line `id` without its `loc(...)` (-1: a `#loc` line, dropped), made once per id. */
  withoutLoc(id: number): number {
    if (id >= this.noLoc.length) {
      const grown = new Int32Array(Math.max(id + 1, 2 * this.noLoc.length, this.base.length)).fill(-2);
      grown.set(this.noLoc);
      this.noLoc = grown;
    }
    let out = this.noLoc[id];
    if (out === -2) {
      const text = this.text(id);
      out = LOC_LINE.test(text) ? -1 : this.intern(stripLoc(text));
      this.noLoc[id] = out;
    }
    return out;
  }

  intern(s: string): number {
    if (this.map === null) {
      this.map = new Map();
      for (let i = 0; i < this.base.length; i++) {
        if (!this.map.has(this.base[i])) {
          this.map.set(this.base[i], i);
        }
      }
    }
    let id = this.map.get(s);
    if (id === undefined) {
      id = this.base.length + this.extra.length;
      this.extra.push(s);
      this.map.set(s, id);
    }
    return id;
  }
}

// the same rules as ascend_ir_lab.analysis.normalize (tests/data/golden/normalize.json pins both)
const LOC_LINE = /^\s*#loc[A-Za-z0-9_$.-]*\s*=\s*loc\(/;
/** `loc(` that is no part of a longer name (`myloc(`, `@loc(`, `%loc(`), with the blanks before it. */
const LOC_START = /[ \t]*(?<![A-Za-z0-9_#$.@%^])loc\(/g;

/** Remove every ` loc(...)` (balanced parentheses, strings respected) from a line. */
export function stripLoc(line: string): string {
  if (!line.includes('loc(')) {
    return line;
  }
  let out = '';
  let pos = 0;
  for (const m of line.matchAll(LOC_START)) {
    const start = m.index ?? 0;
    if (start < pos) {
      continue; // a loc( nested inside one already removed
    }
    const close = closingParen(line, start + m[0].length - 1);
    if (close < 0) {
      break; // unbalanced (a cut line): the rest stays as it is
    }
    out += line.slice(pos, start);
    pos = close + 1;
  }
  return out + line.slice(pos);
}

function closingParen(s: string, open: number): number {
  let depth = 0;
  let inStr = false;
  for (let i = open; i < s.length; i++) {
    const c = s[i];
    if (inStr) {
      if (c === '\\') {
        i++;
      } else if (c === '"') {
        inStr = false;
      }
    } else if (c === '"') {
      inStr = true;
    } else if (c === '(') {
      depth++;
    } else if (c === ')' && --depth === 0) {
      return i;
    }
  }
  return -1;
}

const SSA = /%[A-Za-z0-9_$.-]+|\^[A-Za-z0-9_$.-]+/g;

function canonRenamer(): (line: string) => string {
  const values = new Map<string, string>();
  const blocks = new Map<string, string>();
  return (line: string) =>
    line.replace(SSA, name => {
      const table = name[0] === '%' ? values : blocks;
      let to = table.get(name);
      if (to === undefined) {
        to = (name[0] === '%' ? '%v' : '^bb') + table.size;
        table.set(name, to);
      }
      return to;
    });
}

function canonicalView(table: LineTable, ids: number[]): SnapView {
  const raw = ids.map(id => table.text(id));
  const { lines, orig } = canonicalLines(raw);
  const out = lines.map((text, k) => {
    const line = raw[orig[k]];
    return table.intern(line.slice(0, line.length - line.trimStart().length) + text);
  });
  return { ids: out, orig };
}

export function normalizeSnapshot(table: LineTable, ids: number[], flags: NormFlags): SnapView {
  if (flags.canonical) {
    return canonicalView(table, ids);
  }
  if (!flags.dropLoc && !flags.canonSsa) {
    return { ids, orig: identity(ids.length) };
  }
  if (!flags.canonSsa) {
    return withoutLocs(table, ids);
  }
  const rename = flags.canonSsa ? canonRenamer() : null;
  const out: number[] = [];
  const orig: number[] = [];
  for (let i = 0; i < ids.length; i++) {
    let text = table.text(ids[i]);
    if (flags.dropLoc) {
      if (LOC_LINE.test(text)) {
        continue;
      }
      text = stripLoc(text);
    }
    if (rename) {
      text = rename(text);
    }
    out.push(table.intern(text));
    orig.push(i);
  }
  return { ids: out, orig };
}

/** Locations dropped, line by line: each distinct line is stripped once for the whole payload. */
function withoutLocs(table: LineTable, ids: number[]): SnapView {
  const out: number[] = [];
  const orig: number[] = [];
  for (let i = 0; i < ids.length; i++) {
    const id = table.withoutLoc(ids[i]);
    if (id >= 0) {
      out.push(id);
      orig.push(i);
    }
  }
  return { ids: out, orig };
}

const IDENTITY: { arr: Int32Array } = { arr: new Int32Array(0) };

function identity(n: number): Int32Array {
  if (IDENTITY.arr.length < n) {
    IDENTITY.arr = Int32Array.from({ length: Math.max(n, 2 * IDENTITY.arr.length) }, (_, i) => i);
  }
  return IDENTITY.arr.subarray(0, n);
}
