// Packed payloads from someone else's page or notebook: a gzip bomb is one PayloadError once it
// has unpacked past the bound, never a tab that runs out of memory.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';

import { boundedText, unpackPayload } from '../src/viewer/packed';
import { PayloadError } from '../src/viewer/payload';

function gunzipping(bytes: Uint8Array<ArrayBuffer>): ReadableStream<Uint8Array> {
  return new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
}

describe('packed payloads', () => {
  test('a bomb stops at the bound', async () => {
    const bomb = new Uint8Array(gzipSync(Buffer.alloc(8 << 20, 0x20))); // 8 MiB of spaces in a few KB
    assert.ok(bomb.length < 64 << 10);
    await assert.rejects(boundedText(gunzipping(bomb), 1 << 20), (e: unknown) => e instanceof PayloadError && /more than 1 MiB/.test(String(e.message)));
  });

  test('what is under the bound unpacks whole, multi-byte text included', async () => {
    const text = JSON.stringify({ format: 'ascend-ir-lab/timeline@1', title: '向量加法 \u202e', lines: ['a'.repeat(200000)] });
    assert.equal(await boundedText(gunzipping(new Uint8Array(gzipSync(Buffer.from(text)))), 1 << 20), text);
    const packed = { packed: 'gzip+base64', data: gzipSync(Buffer.from(text)).toString('base64'), notes: [] };
    assert.equal(((await unpackPayload(packed)) as { title: string }).title, '向量加法 \u202e');
  });
});
