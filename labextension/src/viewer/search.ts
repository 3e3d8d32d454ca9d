// Search over interned lines: each distinct line is tested once, then hits per snapshot are
// counts of matching ids, which makes hits along a 386-pass strip cheap.

export type SearchMode = 'text' | 'regex' | 'op';

export interface Matcher {
  test(line: string): boolean;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A matcher for the query, or an error message for a bad regex. */
export function makeMatcher(mode: SearchMode, query: string): Matcher | string {
  if (query === '') {
    return 'empty query';
  }
  if (mode === 'text') {
    return { test: line => line.includes(query) };
  }
  let source = query;
  if (mode === 'op') {
    source = `(?:^|[\\s"=(])${escapeRe(query)}(?![A-Za-z0-9_$.])`;
  }
  try {
    const re = new RegExp(source);
    return { test: line => re.test(line) };
  } catch (e) {
    return `bad regex: ${(e as Error).message}`;
  }
}

/** Per-snapshot number of lines matching. */
export function countPerSnapshot(lines: string[], snapshots: number[][], m: Matcher): Int32Array {
  const hit = new Uint8Array(lines.length);
  for (let i = 0; i < lines.length; i++) {
    hit[i] = m.test(lines[i]) ? 1 : 0;
  }
  const counts = new Int32Array(snapshots.length);
  for (let s = 0; s < snapshots.length; s++) {
    const ids = snapshots[s];
    let c = 0;
    for (let k = 0; k < ids.length; k++) {
      c += hit[ids[k]];
    }
    counts[s] = c;
  }
  return counts;
}
