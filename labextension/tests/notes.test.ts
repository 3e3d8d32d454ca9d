// Notes from someone else's notebook or page: one that names no pass, or is no note at all,
// is left out; the others are kept, and a line that is no IR line keeps its note on the pass.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { checkNotes, type Dump, PayloadError } from '../src/viewer/payload';

const dumps = [
  { pass: 'CSE', arg: 'cse' },
  { pass: 'Canonicalizer', arg: '' }
] as unknown as Dump[];

test('one bad note hides no other', () => {
  const warned: string[] = [];
  const warn = console.warn;
  console.warn = (m: string) => warned.push(m);
  try {
    const kept = checkNotes(
      [
        { dump: 0, text: 'kept', ir_line: 3 },
        'no note',
        { dump: 99, text: 'names no dump' },
        { dump: 1, text: 'on its whole pass', ir_line: 1e12 },
        { dump: 1, text: 'a string line', ir_line: '4' },
        { dump: 0 }
      ],
      dumps
    );
    assert.deepEqual(
      kept.map(n => [n.text, n.pass, n.ir_line]),
      [
        ['kept', 'cse', 3],
        ['on its whole pass', 'Canonicalizer', null],
        ['a string line', 'Canonicalizer', null]
      ]
    );
    assert.equal(warned.length, 3);
    assert.match(warned[0], /note 2 left out/);
  } finally {
    console.warn = warn;
  }
});

test('notes that are no list are still refused', () => {
  assert.throws(() => checkNotes({ dump: 0 }, dumps), PayloadError);
});
