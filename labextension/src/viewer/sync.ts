// Sync lens: hivm synchronisation ops and distributed primitives, set_flag paired with the
// wait_flag that has the same [pipe, pipe, event] operands. The ops come from the shared table.

import { DIALECT, DISTRIBUTED_OPS, escapeRegex, syncOpPattern } from './syncops';

export interface SyncMark {
  kind: string;
  /** The pipe the op sets or waits on (`MTE2`, `V`, `M`...), '' when it names none. */
  pipe: string;
  /** Pair number shared by a set_flag and its wait_flag, 0 when unpaired or not a flag. */
  pair: number;
  /** Row (line index) of the partner, -1 if none. */
  partner: number;
}

const SYNC_OP = new RegExp(`(?:^|[\\s"=])(?:${escapeRegex(DIALECT)}\\.)?(${syncOpPattern()})(?![A-Za-z0-9_$.])`);
const DIST_OP = new RegExp(`(?:^|[\\s"=])(?:[A-Za-z_]+\\.)*(${DISTRIBUTED_OPS.map(escapeRegex).join('|')})(?![A-Za-z0-9_$.])(?=\\s*[[(<{"%]|\\s*$)`);

export function syncKind(line: string): string | null {
  const m = SYNC_OP.exec(line) ?? DIST_OP.exec(line);
  return m ? m[1] : null;
}

function flagKey(line: string): string {
  const m = /(?:set_flag|wait_flag)\s*(\[[^\]]*\]|\([^)]*\))/.exec(line);
  return m ? m[1].replace(/\s+/g, '') : '';
}

/** The first pipe an op names: `set_flag[<PIPE_MTE1>, <PIPE_MTE2>, ...]` → `MTE1`. */
export function pipeOf(line: string): string {
  const m = /<PIPE_([A-Z0-9_]+)>/.exec(line);
  return m ? m[1] : '';
}

/** Sync ops of one snapshot (as shown), keyed by row index. */
export function syncMarks(texts: string[]): Map<number, SyncMark> {
  const marks = new Map<number, SyncMark>();
  const open = new Map<string, number[]>();
  let pairs = 0;
  texts.forEach((t, row) => {
    const kind = syncKind(t);
    if (!kind) {
      return;
    }
    const mark: SyncMark = { kind, pipe: pipeOf(t), pair: 0, partner: -1 };
    marks.set(row, mark);
    if (kind === 'set_flag') {
      const key = flagKey(t);
      open.set(key, [...(open.get(key) ?? []), row]);
    } else if (kind === 'wait_flag') {
      const queue = open.get(flagKey(t));
      const setRow = queue?.shift();
      if (setRow !== undefined) {
        const setMark = marks.get(setRow) as SyncMark;
        pairs++;
        setMark.pair = mark.pair = pairs;
        setMark.partner = row;
        mark.partner = setRow;
      }
    }
  });
  return marks;
}

export function syncSummary(marks: Map<number, SyncMark>): string {
  const counts = new Map<string, number>();
  let unpaired = 0;
  for (const m of marks.values()) {
    counts.set(m.kind, (counts.get(m.kind) ?? 0) + 1);
    if ((m.kind === 'set_flag' || m.kind === 'wait_flag') && m.pair === 0) {
      unpaired++;
    }
  }
  if (counts.size === 0) {
    return 'no sync ops in this pass';
  }
  const parts = [...counts].map(([k, n]) => `${n} ${k}`);
  if (unpaired) {
    parts.push(`${unpaired} unpaired flag${unpaired === 1 ? '' : 's'}`);
  }
  return parts.join(', ');
}
