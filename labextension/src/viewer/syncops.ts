// The HIVM sync-op table, imported from the file the Python package reads
// (ascend_ir_lab/static/sync-ops.json, ascend_ir_lab.analysis.sync_ops): one list of sync ops,
// their roles, the census a HIVM Run opens with, and one colour per pipe.

import table from '../../../ascend_ir_lab/static/sync-ops.json';

export const DIALECT: string = table.dialect;
/** Every sync op name (`set_flag`, `wait_flag`, ...), in table order. */
export const SYNC_OPS: readonly string[] = table.ops.map(op => op.name);
/** Role of each op: set, wait, barrier, block-set, block-wait, block. */
export const SYNC_ROLES: ReadonlyMap<string, string> = new Map(table.ops.map(op => [op.name, op.role]));
/** triton-distributed primitives recognised as op names (`dist.wait`, `tdl.notify`). */
export const DISTRIBUTED_OPS: readonly string[] = table.distributed;
/** Full names of the ops the census opens with on a HIVM Run. */
export const CENSUS_OPS: readonly string[] = table.census.map(op => `${DIALECT}.${op}`);
/** Full names offered as census suggestions. */
export const SUGGESTED_OPS: readonly string[] = table.suggest.map(op => `${DIALECT}.${op}`);
const PIPES: ReadonlyMap<string, string> = new Map(Object.entries(table.pipes));
export const DEFAULT_COLOUR: string = table.default_colour;

/** The colour of a pipe (`MTE2`, `V`...), the default one for a pipe the table lacks. */
export function pipeColour(pipe: string): string {
  return PIPES.get(pipe) ?? DEFAULT_COLOUR;
}

/** Regex alternation of every sync op name, longest first. */
export function syncOpPattern(): string {
  return [...SYNC_OPS]
    .sort((a, b) => b.length - a.length)
    .map(escapeRegex)
    .join('|');
}

export function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const PATTERNS = table.patterns;
const OP = new RegExp(PATTERNS.op.replace('{ops}', syncOpPattern()), 'g');
const DIST = new RegExp(
  PATTERNS.distributed.replace(
    '{distributed}',
    [...DISTRIBUTED_OPS]
      .sort((a, b) => b.length - a.length)
      .map(escapeRegex)
      .join('|')
  )
);
const SHMEM = new RegExp(PATTERNS.shmem);

/** `<PIPE_V>, <PIPE_MTE2>, %38` → ['PIPE_V', 'PIPE_MTE2', '%']: a runtime event id pairs with any other. */
export function flagArgs(text: string | undefined): string[] {
  if (!text) {
    return [];
  }
  return text
    .split(',')
    .map(a => a.trim())
    .filter(a => a !== '')
    .map(a => (a.startsWith('%') ? '%' : a.replace(/^[<>]+|[<>]+$/g, '')));
}

/** A recognised sync op: its kind and bracketed arguments (flagArgs). */
export interface SyncOp {
  kind: string;
  args: string[];
}

/**
 * The sync op of one IR line, or null, by the table's patterns: a shmem call, then the first
 * HIVM sync op carrying the dialect prefix or `[...]` arguments, then a distributed primitive.
 */
export function recognise(line: string): SyncOp | null {
  const shmem = SHMEM.exec(line);
  if (shmem) {
    return { kind: shmem[1], args: [] };
  }
  for (const m of line.matchAll(OP)) {
    if (m[1] !== undefined || m[3] !== undefined) {
      return { kind: m[2], args: flagArgs(m[3]) };
    }
  }
  const dist = DIST.exec(line);
  return dist ? { kind: dist[1], args: [] } : null;
}
