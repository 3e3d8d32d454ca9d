// Sync lens: hivm synchronisation ops and distributed primitives, set_flag paired with the
// wait_flag that has the same [pipe, pipe, event] operands. The ops come from the shared table.

import { recognise } from './syncops';

export interface SyncMark {
  kind: string;
  /** The pipe the op sets or waits on (`MTE2`, `V`, `M`...), '' when it names none. */
  pipe: string;
  /** Pair number shared by a set_flag and its wait_flag, 0 when unpaired or not a flag. */
  pair: number;
  /** Row (line index) of the partner, -1 if none. */
  partner: number;
}

/** The kind of sync op on a line (`set_flag`, `pipe_barrier`, `dist.wait` → `wait`...), or null. */
export function syncKind(line: string): string | null {
  return recognise(line)?.kind ?? null;
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
    const op = recognise(t);
    if (!op) {
      return;
    }
    const kind = op.kind;
    const mark: SyncMark = { kind, pipe: pipeOf(t), pair: 0, partner: -1 };
    marks.set(row, mark);
    if (kind === 'set_flag') {
      const key = op.args.join(',');
      open.set(key, [...(open.get(key) ?? []), row]);
    } else if (kind === 'wait_flag') {
      const queue = open.get(op.args.join(','));
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
