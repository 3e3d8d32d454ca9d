// The viewer's side of the canonical form's twin: canonicalLines against the golden corpus
// tests/data/golden/canonical.json, which the Python tests read too
// (tests/analysis/test_canonical_golden.py).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { canonicalLines } from '../src/viewer/canonical';

const FILE = join(process.cwd(), '..', 'tests', 'data', 'golden', 'canonical.json');

describe('canonical form', () => {
  const cases: Array<{ name: string; lines: string[]; expected: string[] }> = JSON.parse(readFileSync(FILE, 'utf-8')).cases;
  for (const c of cases) {
    test(c.name, () => {
      const got = canonicalLines(c.lines);
      assert.deepEqual(got.lines, c.expected);
      assert.equal(got.orig.length, got.lines.length);
    });
  }
});
