// The viewer's side of the twins: diff, normalisation, the sync lens and payload validation
// against the golden corpus in tests/data/golden, which the Python tests read too
// (tests/test_golden.py). Both must give the answers written there.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { DEL, diffIds, EQ, INS } from '../src/viewer/diff';
import { LineTable, normalizeSnapshot } from '../src/viewer/normalize';
import { PayloadError, validatePayload } from '../src/viewer/payload';
import { syncMarks } from '../src/viewer/sync';
import { recognise } from '../src/viewer/syncops';

const GOLDEN = join(process.cwd(), '..', 'tests', 'data', 'golden');

// biome-ignore lint/suspicious/noExplicitAny: the corpus is JSON read at run time
type Json = any;

function corpus(name: string): Json {
  return JSON.parse(readFileSync(join(GOLDEN, `${name}.json`), 'utf-8'));
}

describe('sync ops', () => {
  const sync = corpus('sync');
  for (const c of sync.lines) {
    test(`recognised: ${c.line.trim().slice(0, 40) || '(empty)'}`, () => {
      const found = recognise(c.line);
      assert.equal(found ? found.kind : null, c.kind);
      if (found) {
        assert.deepEqual(found.args, c.args);
      }
      assert.deepEqual(
        [...syncMarks([c.line]).values()].map(m => m.kind),
        c.kind ? [c.kind] : []
      );
    });
  }
  for (const c of sync.snapshots) {
    test(`paired: ${c.name}`, () => {
      const marks = syncMarks(c.lines);
      const pairs: number[][] = [];
      const unpaired: number[] = [];
      for (const [row, m] of marks) {
        if (m.kind === 'wait_flag' && m.pair) {
          pairs.push([m.partner, row]);
        } else if ((m.kind === 'set_flag' || m.kind === 'wait_flag') && !m.pair) {
          unpaired.push(row);
        }
      }
      const order = (a: number[], b: number[]): number => a[0] - b[0] || a[1] - b[1];
      assert.deepEqual(pairs.sort(order), [...c.pairs].sort(order));
      assert.deepEqual(
        unpaired.sort((a, b) => a - b),
        c.unpaired
      );
    });
  }
});

describe('diff', () => {
  for (const c of corpus('diff').cases) {
    test(c.name, () => {
      const ids = new Map<string, number>();
      const intern = (s: string): number => {
        if (!ids.has(s)) {
          ids.set(s, ids.size);
        }
        return ids.get(s) as number;
      };
      const a: string[] = c.a;
      const b: string[] = c.b;
      const edits = diffIds(a.map(intern), b.map(intern));
      assert.equal(edits.filter(e => e.k === EQ).length, c.equal);
      // the script turns a into b: every line of each side once, in order, equal lines equal
      const rebuilt: string[] = [];
      const seenA: number[] = [];
      for (const e of edits) {
        if (e.k === EQ) {
          assert.equal(a[e.a], b[e.b]);
          rebuilt.push(b[e.b]);
          seenA.push(e.a);
        } else if (e.k === INS) {
          rebuilt.push(b[e.b]);
        } else {
          assert.equal(e.k, DEL);
          seenA.push(e.a);
        }
      }
      assert.deepEqual(rebuilt, b);
      assert.deepEqual(
        seenA,
        a.map((_, i) => i)
      );
    });
  }
});

describe('normalisation', () => {
  for (const c of corpus('normalize').cases) {
    test(c.name, () => {
      const table = new LineTable(c.lines);
      const view = normalizeSnapshot(
        table,
        c.lines.map((_: string, i: number) => i),
        { dropLoc: c.locations, canonSsa: c.ssa }
      );
      assert.deepEqual(
        Array.from(view.ids, id => table.text(id)),
        c.expected
      );
    });
  }
});

function payloadCase(c: Json, base: Json): Json {
  if ('payload' in c) {
    return c.payload;
  }
  const out = structuredClone(base);
  for (const [path, value] of c.set) {
    let at = out;
    for (const key of path.slice(0, -1)) {
      at = at[key];
    }
    if (value === null) {
      delete at[path[path.length - 1]];
    } else {
      at[path[path.length - 1]] = value;
    }
  }
  return out;
}

describe('payload validation', () => {
  const payloads = corpus('payload');
  for (const c of payloads.valid) {
    test(`valid: ${c.name}`, () => {
      const p = validatePayload(payloadCase(c, payloads.base));
      assert.equal(p.dumps.length, payloads.base.dumps.length);
    });
  }
  for (const c of payloads.invalid) {
    test(`invalid: ${c.name}`, () => {
      assert.throws(
        () => validatePayload(payloadCase(c, payloads.base)),
        (e: unknown) => e instanceof PayloadError && e.message.startsWith(c.field)
      );
    });
  }
});
