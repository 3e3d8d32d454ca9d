// Line diff on interned ids: common prefix/suffix trimmed, Myers O(ND) in the middle, and a
// patience-style split on lines unique to both sides when the edit distance grows large.

export const EQ = 0;
export const DEL = 1;
export const INS = 2;

/** One row of an edit script: a is the old index (EQ/DEL), b the new index (EQ/INS), else -1. */
export interface Edit {
  k: 0 | 1 | 2;
  a: number;
  b: number;
}

type Ids = ArrayLike<number>;

const MAX_D = 1200;
const MAX_DEPTH = 8;

function myers(a: Ids, a0: number, a1: number, b: Ids, b0: number, b1: number, out: Edit[], maxD: number): boolean {
  const n = a1 - a0;
  const m = b1 - b0;
  const max = Math.min(n + m, maxD);
  const off = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice(off - d - 1, off + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[off + k - 1] < v[off + k + 1]) ? v[off + k + 1] : v[off + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[a0 + x] === b[b0 + y]) {
        x++;
        y++;
      }
      v[off + k] = x;
      if (x >= n && y >= m) {
        backtrack(trace, d, n, m, a0, b0, out);
        return true;
      }
    }
  }
  return false;
}

function backtrack(trace: Int32Array[], dEnd: number, n: number, m: number, a0: number, b0: number, out: Edit[]): void {
  const rev: Edit[] = [];
  let x = n;
  let y = m;
  for (let d = dEnd; d > 0; d--) {
    const t = trace[d];
    const at = (k: number): number => t[k + d + 1];
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      rev.push({ k: EQ, a: a0 + x - 1, b: b0 + y - 1 });
      x--;
      y--;
    }
    if (x === prevX) {
      rev.push({ k: INS, a: -1, b: b0 + y - 1 });
    } else {
      rev.push({ k: DEL, a: a0 + x - 1, b: -1 });
    }
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) {
    rev.push({ k: EQ, a: a0 + x - 1, b: b0 + y - 1 });
    x--;
    y--;
  }
  for (let i = rev.length - 1; i >= 0; i--) {
    out.push(rev[i]);
  }
}

function uniqueAnchors(a: Ids, a0: number, a1: number, b: Ids, b0: number, b1: number): Array<[number, number]> {
  const ca = new Map<number, number>();
  const cb = new Map<number, number>();
  for (let i = a0; i < a1; i++) {
    ca.set(a[i], ca.has(a[i]) ? -1 : i);
  }
  for (let j = b0; j < b1; j++) {
    cb.set(b[j], cb.has(b[j]) ? -1 : j);
  }
  const pairs: Array<[number, number]> = [];
  for (let i = a0; i < a1; i++) {
    const ia = ca.get(a[i]);
    const jb = cb.get(a[i]);
    if (ia === i && jb !== undefined && jb >= 0) {
      pairs.push([i, jb]);
    }
  }
  return longestIncreasing(pairs);
}

function longestIncreasing(pairs: Array<[number, number]>): Array<[number, number]> {
  const tails: number[] = [];
  const prev = new Int32Array(pairs.length).fill(-1);
  for (let p = 0; p < pairs.length; p++) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pairs[tails[mid]][1] < pairs[p][1]) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    prev[p] = lo > 0 ? tails[lo - 1] : -1;
    tails[lo] = p;
  }
  const res: Array<[number, number]> = [];
  for (let p = tails.length ? tails[tails.length - 1] : -1; p >= 0; p = prev[p]) {
    res.push(pairs[p]);
  }
  return res.reverse();
}

function replaceAll(a0: number, a1: number, b0: number, b1: number, out: Edit[]): void {
  for (let i = a0; i < a1; i++) {
    out.push({ k: DEL, a: i, b: -1 });
  }
  for (let j = b0; j < b1; j++) {
    out.push({ k: INS, a: -1, b: j });
  }
}

function diffRange(a: Ids, a0: number, a1: number, b: Ids, b0: number, b1: number, out: Edit[], depth: number): void {
  while (a0 < a1 && b0 < b1 && a[a0] === b[b0]) {
    out.push({ k: EQ, a: a0++, b: b0++ });
  }
  let aEnd = a1;
  let bEnd = b1;
  while (aEnd > a0 && bEnd > b0 && a[aEnd - 1] === b[bEnd - 1]) {
    aEnd--;
    bEnd--;
  }
  if (a0 === aEnd || b0 === bEnd) {
    replaceAll(a0, aEnd, b0, bEnd, out);
  } else if (!myers(a, a0, aEnd, b, b0, bEnd, out, MAX_D)) {
    const anchors = depth < MAX_DEPTH ? uniqueAnchors(a, a0, aEnd, b, b0, bEnd) : [];
    if (anchors.length === 0) {
      replaceAll(a0, aEnd, b0, bEnd, out);
    } else {
      let pa = a0;
      let pb = b0;
      for (const [ia, jb] of anchors) {
        diffRange(a, pa, ia, b, pb, jb, out, depth + 1);
        out.push({ k: EQ, a: ia, b: jb });
        pa = ia + 1;
        pb = jb + 1;
      }
      diffRange(a, pa, aEnd, b, pb, bEnd, out, depth + 1);
    }
  }
  for (let i = aEnd, j = bEnd; i < a1; i++, j++) {
    out.push({ k: EQ, a: i, b: j });
  }
}

/** Edit script turning a into b (sequences of interned ids). */
export function diffIds(a: Ids, b: Ids): Edit[] {
  const out: Edit[] = [];
  diffRange(a, 0, a.length, b, 0, b.length, out, 0);
  return out;
}

const WORD = /[A-Za-z0-9_%#@^$.]+|\s+|[^A-Za-z0-9_%#@^$.\s]/g;

function words(s: string): string[] {
  return s.match(WORD) ?? [];
}

/** Character ranges [start, end) that differ between two lines, word by word. */
export function wordDiff(oldText: string, newText: string): { old: Array<[number, number]>; new: Array<[number, number]> } {
  const wa = words(oldText);
  const wb = words(newText);
  const ids = new Map<string, number>();
  const intern = (w: string): number => {
    let id = ids.get(w);
    if (id === undefined) {
      id = ids.size;
      ids.set(w, id);
    }
    return id;
  };
  const edits = diffIds(wa.map(intern), wb.map(intern));
  const offA = offsets(wa);
  const offB = offsets(wb);
  const ra: Array<[number, number]> = [];
  const rb: Array<[number, number]> = [];
  for (const e of edits) {
    if (e.k === DEL) {
      addRange(ra, offA[e.a], offA[e.a + 1]);
    } else if (e.k === INS) {
      addRange(rb, offB[e.b], offB[e.b + 1]);
    }
  }
  return { old: ra, new: rb };
}

function offsets(ws: string[]): number[] {
  const off = [0];
  for (const w of ws) {
    off.push(off[off.length - 1] + w.length);
  }
  return off;
}

function addRange(r: Array<[number, number]>, s: number, e: number): void {
  const last = r[r.length - 1];
  if (last && last[1] === s) {
    last[1] = e;
  } else {
    r.push([s, e]);
  }
}
