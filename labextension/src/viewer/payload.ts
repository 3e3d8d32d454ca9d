// The timeline payload (docs/formats.md): the viewer's only input. Validated in full before
// anything is drawn, so a bad payload gives an error panel rather than a half render.

export const MIME_TYPE = 'application/vnd.ascend-ir-lab.timeline+json';
export const FORMAT_PREFIX = 'ascend-ir-lab/timeline@';
export const SUPPORTED_VERSIONS = [1];

export interface Dump {
  i: number;
  stage: number;
  pass: string;
  arg: string;
  phase: string;
  scope: string;
  snap: number;
  prev: number;
  /** The next dump of the same scope (-1: none); a Before dump's pass output. */
  next: number;
  changed: boolean;
  lines: number;
  truncated: boolean;
  ms: number | null;
}

export interface Stage {
  name: string;
  command: string[];
  returncode: number | null;
  /** How the stage ended when not well (docs/formats.md); null: it ended well or the payload does not say. */
  status: string | null;
}

export interface Message {
  stage: number;
  after: number;
  level: string;
  text: string;
}

/**
 * The kernel's whole file (or notebook cell): `text` is numbered from its line 1, the numbers
 * its IR locations carry; `first_line` is the 1-based line of the kernel's `def` in it.
 */
export interface Source {
  file: string;
  first_line: number;
  text: string;
}

/**
 * A note on a pass, or on one line of it: `ir_line` is the 1-based line of the pass's IR as the
 * gutter and the CLI number it (null: the whole pass); `pass` names the pass for readers.
 * Notes written before this convention carry `line`, 0-based; they are read as line + 1.
 */
export interface Note {
  id: string;
  dump: number;
  pass: string;
  ir_line: number | null;
  text: string;
  created: string;
}

/** One finding of the sync checker on a line of a dump's IR (1-based, as the gutter). */
export interface SyncFinding {
  line: number;
  severity: 'definite' | 'possible';
  kind: string;
  message: string;
}

/** One config of an autotune sweep (payload `capture.configs`). */
export interface SweepConfig {
  index: number | null;
  /** The config as the Run records it, drawn as JSON text. */
  config: string;
  status: string;
  passesCaptured: boolean;
  /** The config's Run folder name (a sibling of this Run), or null. */
  run: string | null;
}

/** What the "capture passes" button needs (payload `capture`). */
export interface Capture {
  passesCaptured: boolean;
  configs: SweepConfig[];
  chosen: number | null;
  note: string;
  /** The Run folder, for the command that captures it from a shell (null: unknown). */
  folder: string | null;
}

export interface Payload {
  format: string;
  title: string;
  meta: Record<string, unknown>;
  lines: string[];
  snapshots: number[][];
  stages: Stage[];
  dumps: Dump[];
  messages: Message[];
  source: Source | null;
  srcmap: Array<Array<[number, number]>>;
  notes: Note[];
  warnings: string[];
  /** Sync-checker findings per dump index (payload key `sync_check`), empty when absent. */
  syncCheck: Map<number, SyncFinding[]>;
  capture: Capture | null;
}

export class PayloadError extends Error {}

/** A JSON object as parsed. */
export type Obj = Record<string, unknown>;

/** Throw the PayloadError that says where the payload is wrong, what was wanted and what came. */
export function fail(where: string, what: string, got: unknown): never {
  let shown: string;
  try {
    shown = JSON.stringify(got);
  } catch {
    shown = String(got);
  }
  if (shown === undefined) {
    shown = 'nothing';
  } else if (shown.length > 60) {
    shown = `${shown.slice(0, 57)}...`;
  }
  throw new PayloadError(`${where}: expected ${what}, got ${shown}`);
}

/** True for a JSON object (not an array, not null). */
export function isObj(x: unknown): x is Obj {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function str(o: Obj, key: string, where: string, dflt?: string): string {
  const v = o[key];
  if (v === undefined && dflt !== undefined) {
    return dflt;
  }
  return typeof v === 'string' ? v : fail(`${where}.${key}`, 'a string', v);
}

function int(v: unknown, where: string, lo: number, hi: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi) {
    fail(where, `an integer in ${lo}..${hi}`, v);
  }
  return v as number;
}

function arr(v: unknown, where: string): unknown[] {
  return Array.isArray(v) ? v : fail(where, 'a list', v);
}

function checkLines(raw: unknown): string[] {
  const lines = arr(raw, 'lines');
  for (let k = 0; k < lines.length; k++) {
    if (typeof lines[k] !== 'string') {
      fail(`lines[${k}]`, 'a string', lines[k]);
    }
  }
  return lines as string[];
}

function checkSnapshots(raw: unknown, nLines: number): number[][] {
  const snaps = arr(raw, 'snapshots');
  for (let s = 0; s < snaps.length; s++) {
    const ids = arr(snaps[s], `snapshots[${s}]`);
    for (let k = 0; k < ids.length; k++) {
      const v = ids[k];
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v >= nLines) {
        fail(`snapshots[${s}][${k}]`, `a line id in 0..${nLines - 1}`, v);
      }
    }
  }
  return snaps as number[][];
}

function checkStage(raw: unknown, k: number): Stage {
  const where = `stages[${k}]`;
  if (!isObj(raw)) {
    fail(where, 'an object', raw);
  }
  const cmd = raw.command === undefined || raw.command === null ? [] : arr(raw.command, `${where}.command`);
  const rc = raw.returncode;
  return {
    name: str(raw, 'name', where),
    command: cmd.map(c => String(c)),
    returncode: typeof rc === 'number' ? rc : null,
    status: raw.status === undefined || raw.status === null ? null : str(raw, 'status', where)
  };
}

function checkDump(raw: unknown, k: number, nStages: number, nSnaps: number, nDumps: number): Dump {
  const where = `dumps[${k}]`;
  if (!isObj(raw)) {
    fail(where, 'an object', raw);
  }
  const ms = raw.ms;
  return {
    i: k,
    stage: int(raw.stage, `${where}.stage`, 0, nStages - 1),
    pass: str(raw, 'pass', where),
    arg: str(raw, 'arg', where, ''),
    phase: str(raw, 'phase', where, 'after'),
    scope: str(raw, 'scope', where, 'builtin.module'),
    snap: int(raw.snap, `${where}.snap`, 0, nSnaps - 1),
    prev: int(raw.prev, `${where}.prev`, -1, k - 1),
    next: raw.next === undefined || raw.next === -1 ? -1 : int(raw.next, `${where}.next`, k + 1, nDumps - 1),
    changed: raw.changed === undefined ? true : raw.changed === true,
    lines: typeof raw.lines === 'number' ? raw.lines : 0,
    truncated: raw.truncated === true,
    ms: typeof ms === 'number' ? ms : null
  };
}

function checkMessage(raw: unknown, k: number, nDumps: number): Message {
  const where = `messages[${k}]`;
  if (!isObj(raw)) {
    fail(where, 'an object', raw);
  }
  return {
    stage: typeof raw.stage === 'number' ? raw.stage : 0,
    after: int(raw.after ?? -1, `${where}.after`, -1, Math.max(nDumps - 1, -1)),
    level: str(raw, 'level', where, 'info'),
    text: str(raw, 'text', where)
  };
}

function checkSource(raw: unknown): Source | null {
  if (raw === undefined || raw === null) {
    return null;
  }
  if (!isObj(raw)) {
    fail('source', 'an object or null', raw);
  }
  const first = raw.first_line === undefined ? 1 : int(raw.first_line, 'source.first_line', 0, 1e9);
  return { file: str(raw, 'file', 'source', ''), first_line: first, text: str(raw, 'text', 'source') };
}

function checkSrcmap(raw: unknown, nSnaps: number): Array<Array<[number, number]>> {
  if (raw === undefined || raw === null) {
    return [];
  }
  const maps = arr(raw, 'srcmap');
  if (maps.length > nSnaps) {
    fail('srcmap', `at most ${nSnaps} entries (one per snapshot)`, maps.length);
  }
  for (let s = 0; s < maps.length; s++) {
    const pairs = arr(maps[s], `srcmap[${s}]`);
    for (let k = 0; k < pairs.length; k++) {
      const p = arr(pairs[k], `srcmap[${s}][${k}]`);
      int(p[0], `srcmap[${s}][${k}][0]`, 0, 1e9);
      int(p[1], `srcmap[${s}][${k}][1]`, 0, 1e9);
    }
  }
  return maps as Array<Array<[number, number]>>;
}

/** The note's IR line; a line that is no line of any IR (a string, 1e12, -3) leaves the note
 * on its whole pass, as the page's writer keeps it. */
function noteLine(raw: Obj, where: string): number | null {
  try {
    if (raw.ir_line !== undefined && raw.ir_line !== null) {
      return int(raw.ir_line, `${where}.ir_line`, 1, 1e9);
    }
    if (raw.line !== undefined && raw.line !== null) {
      return int(raw.line, `${where}.line`, 0, 1e9) + 1; // the 0-based form of earlier notes
    }
  } catch (e) {
    if (!(e instanceof PayloadError)) {
      throw e;
    }
  }
  return null;
}

export function checkNote(raw: unknown, k: number, dumps: Dump[]): Note {
  const where = `notes[${k}]`;
  if (!isObj(raw)) {
    fail(where, 'an object', raw);
  }
  const dump = int(raw.dump, `${where}.dump`, 0, dumps.length - 1);
  return {
    id: str(raw, 'id', where, `n${k + 1}`),
    dump,
    pass: dumps[dump].arg || dumps[dump].pass,
    ir_line: noteLine(raw, where),
    text: str(raw, 'text', where),
    created: str(raw, 'created', where, '')
  };
}

/** The notes that name a pass of this page; one that does not (or is no note at all) is left
 * out with a warning, the others kept: one bad note in a stranger's notebook hides no other. */
export function checkNotes(raw: unknown, dumps: Dump[]): Note[] {
  if (raw === undefined || raw === null) {
    return [];
  }
  const kept: Note[] = [];
  arr(raw, 'notes').forEach((n, k) => {
    try {
      kept.push(checkNote(n, k, dumps));
    } catch (e) {
      if (!(e instanceof PayloadError)) {
        throw e;
      }
      console.warn(`ascend-ir-lab: note ${k + 1} left out: ${e.message}`);
    }
  });
  return kept;
}

function checkFinding(raw: unknown, where: string, nLines: number): SyncFinding {
  if (!isObj(raw)) {
    fail(where, 'an object', raw);
  }
  const severity = str(raw, 'severity', where, 'possible');
  return {
    line: int(raw.line, `${where}.line`, 1, nLines),
    severity: severity === 'definite' ? 'definite' : 'possible',
    kind: str(raw, 'kind', where, ''),
    message: str(raw, 'message', where, '')
  };
}

/** Findings per dump; each names a dump that exists and a line inside that dump's IR. */
function checkSyncCheck(raw: unknown, dumps: Dump[], snapshots: number[][]): Map<number, SyncFinding[]> {
  const out = new Map<number, SyncFinding[]>();
  if (raw === undefined || raw === null) {
    return out;
  }
  if (!isObj(raw) || !isObj(raw.dumps)) {
    fail('sync_check', 'an object {"dumps": {...}}', raw);
  }
  for (const [key, list] of Object.entries(raw.dumps as Obj)) {
    const dump = int(Number(key), `sync_check.dumps[${JSON.stringify(key)}]`, 0, dumps.length - 1);
    const nLines = snapshots[dumps[dump].snap].length;
    out.set(
      dump,
      arr(list, `sync_check.dumps.${key}`).map((f, k) => checkFinding(f, `sync_check.dumps.${key}[${k}]`, nLines))
    );
  }
  return out;
}

function optString(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

function configText(v: unknown): string {
  if (typeof v === 'string') {
    return v;
  }
  try {
    return JSON.stringify(v) ?? '';
  } catch {
    return '';
  }
}

/** The capture info, types checked field by field (a wrong field is dropped, not fatal). */
function checkCapture(raw: unknown): Capture | null {
  if (!isObj(raw)) {
    return null;
  }
  const configs = (Array.isArray(raw.configs) ? raw.configs : []).filter(isObj).map(c => ({
    index: typeof c.index === 'number' && Number.isInteger(c.index) ? c.index : null,
    config: configText(c.config),
    status: typeof c.status === 'string' ? c.status : '',
    passesCaptured: c.passes_captured === true,
    run: optString(c.run)
  }));
  return {
    passesCaptured: raw.passes_captured !== false,
    configs,
    chosen: typeof raw.chosen === 'number' ? raw.chosen : null,
    note: typeof raw.note === 'string' ? raw.note : '',
    folder: optString(raw.folder)
  };
}

function checkFormat(raw: Obj): string {
  const format = str(raw, 'format', 'payload');
  const version = Number(format.slice(FORMAT_PREFIX.length));
  if (!format.startsWith(FORMAT_PREFIX) || !SUPPORTED_VERSIONS.includes(version)) {
    fail('format', `${FORMAT_PREFIX}${SUPPORTED_VERSIONS.join('|')}`, format);
  }
  return format;
}

/** Check a parsed payload completely and return it typed; throws PayloadError naming the field. */
export function validatePayload(raw: unknown): Payload {
  if (!isObj(raw)) {
    fail('payload', 'a JSON object', raw);
  }
  const format = checkFormat(raw);
  const lines = checkLines(raw.lines);
  const snapshots = checkSnapshots(raw.snapshots, lines.length);
  const stages = arr(raw.stages, 'stages').map(checkStage);
  const rawDumps = arr(raw.dumps, 'dumps');
  const dumps = rawDumps.map((d, k) => checkDump(d, k, stages.length, snapshots.length, rawDumps.length));
  const messages = arr(raw.messages ?? [], 'messages').map((m, k) => checkMessage(m, k, dumps.length));
  const warnings = arr(raw.warnings ?? [], 'warnings').map(w => String(w));
  return {
    format,
    title: str(raw, 'title', 'payload', 'IR timeline'),
    meta: isObj(raw.meta) ? raw.meta : {},
    lines,
    snapshots,
    stages,
    dumps,
    messages,
    source: checkSource(raw.source),
    srcmap: checkSrcmap(raw.srcmap, snapshots.length),
    notes: checkNotes(raw.notes, dumps),
    warnings,
    syncCheck: checkSyncCheck(raw.sync_check, dumps, snapshots),
    capture: checkCapture(raw.capture)
  };
}
