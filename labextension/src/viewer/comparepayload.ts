// The payload of two Runs side by side (`ascend-ir-lab/compare@1`, docs/formats.md): each
// Run's timeline payload over one shared line table, and the pass-aligned pairs. Validated in
// full before anything is drawn, as the timeline payload is.

import { type Dump, type Payload, PayloadError, validatePayload } from './payload';

export const COMPARE_PREFIX = 'ascend-ir-lab/compare@';
export const PAIR_KINDS = ['same', 'real', 'noise', 'inherited', 'only-a', 'only-b'] as const;
export type PairKind = (typeof PAIR_KINDS)[number];

/** One pass as it ran in A and in B (-1: that side does not run it), and what the pair is. */
export interface Pair {
  a: number;
  b: number;
  kind: PairKind;
}

export interface Comparison {
  title: string;
  names: [string, string];
  lines: string[];
  a: Payload;
  b: Payload;
  pairs: Pair[];
  firstDivergence: number | null;
  firstReal: number | null;
  noiseBuilds: number;
  summary: string[];
}

type Obj = Record<string, unknown>;

function isObj(x: unknown): x is Obj {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** True for a payload of the comparison form (any version: validation says which it takes). */
export function isComparison(raw: unknown): boolean {
  return isObj(raw) && typeof raw.format === 'string' && raw.format.startsWith(COMPARE_PREFIX);
}

function side(raw: unknown, lines: unknown, which: string): Payload {
  if (!isObj(raw)) {
    throw new PayloadError(`${which}: expected a timeline payload`);
  }
  try {
    return validatePayload({ ...raw, lines });
  } catch (e) {
    throw new PayloadError(`${which}.${e instanceof Error ? e.message : String(e)}`);
  }
}

function pairIndex(v: unknown, n: number, where: string): number | null {
  if (v === null || v === undefined) {
    return null;
  }
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v >= n) {
    throw new PayloadError(`${where}: expected a pair index in 0..${n - 1} or null`);
  }
  return v;
}

function checkPair(raw: unknown, k: number, a: Dump[], b: Dump[]): Pair {
  const bad = (): never => {
    throw new PayloadError(`pairs[${k}]: expected [A dump or -1, B dump or -1, kind]`);
  };
  if (!Array.isArray(raw) || raw.length !== 3) {
    return bad();
  }
  const [ia, ib, kind] = raw;
  const okIndex = (v: unknown, n: number): boolean => typeof v === 'number' && Number.isInteger(v) && v >= -1 && v < n;
  if (!okIndex(ia, a.length) || !okIndex(ib, b.length) || !PAIR_KINDS.includes(kind as PairKind) || (ia === -1 && ib === -1)) {
    return bad();
  }
  return { a: ia as number, b: ib as number, kind: kind as PairKind };
}

/** Check a comparison payload completely; throws PayloadError naming the field. */
export function validateComparison(raw: unknown): Comparison {
  if (!isObj(raw)) {
    throw new PayloadError('payload: expected a JSON object');
  }
  if (raw.format !== `${COMPARE_PREFIX}1`) {
    throw new PayloadError(`format: expected ${COMPARE_PREFIX}1, got ${JSON.stringify(raw.format)}`);
  }
  const a = side(raw.a, raw.lines, 'a');
  const b = side(raw.b, raw.lines, 'b');
  if (!Array.isArray(raw.pairs)) {
    throw new PayloadError('pairs: expected a list');
  }
  const pairs = raw.pairs.map((p, k) => checkPair(p, k, a.dumps, b.dumps));
  const names = Array.isArray(raw.names) && raw.names.length === 2 ? raw.names.map(String) : ['A', 'B'];
  return {
    title: typeof raw.title === 'string' ? raw.title : `${names[0]} vs ${names[1]}`,
    names: [names[0], names[1]],
    lines: a.lines,
    a,
    b,
    pairs,
    firstDivergence: pairIndex(raw.first_divergence, pairs.length, 'first_divergence'),
    firstReal: pairIndex(raw.first_real, pairs.length, 'first_real'),
    noiseBuilds: typeof raw.noise_builds === 'number' ? raw.noise_builds : 0,
    summary: Array.isArray(raw.summary) ? raw.summary.map(String) : []
  };
}
