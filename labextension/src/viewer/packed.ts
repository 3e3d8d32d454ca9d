// The packed form of a payload (ascend_ir_lab.export.packing): {"packed": "gzip+base64", "data",
// "notes"}, unpacked in the browser before it is validated (payload.ts).

import { fail, isObj, type Obj, PayloadError } from './payload';

export const PACKED = 'gzip+base64';

/** True for a payload in packed form. */
export function isPacked(raw: unknown): boolean {
  return isObj(raw) && raw.packed === PACKED;
}

function base64Bytes(text: string): Uint8Array<ArrayBuffer> {
  const bin = atob(text);
  const out = new Uint8Array(new ArrayBuffer(bin.length));
  for (let k = 0; k < bin.length; k++) {
    out[k] = bin.charCodeAt(k);
  }
  return out;
}

/** What packed data may unpack to (as export.packing.UNPACKED_MAX_BYTES): more is a gzip bomb. */
export const UNPACKED_MAX_BYTES = 512 * 1024 * 1024;

/** The stream's text, read no further than UNPACKED_MAX_BYTES (a bomb stops there, not at OOM). */
export async function boundedText(stream: ReadableStream<Uint8Array>, limit = UNPACKED_MAX_BYTES): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder('utf-8');
  const parts: string[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      break;
    }
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new PayloadError(`data: unpacks to more than ${limit / (1024 * 1024)} MiB; not a timeline`);
    }
    parts.push(decoder.decode(value, { stream: true }));
  }
  parts.push(decoder.decode());
  return parts.join('');
}

/**
 * The plain payload of a packed one, through the browser's own DecompressionStream (no network,
 * no library); anything else is returned as it is. Throws PayloadError when the data is bad.
 */
export async function unpackPayload(raw: unknown): Promise<unknown> {
  if (!isPacked(raw)) {
    return raw;
  }
  const packed = raw as Obj;
  const data = packed.data;
  if (typeof data !== 'string') {
    fail('data', 'a gzip+base64 string', data);
  }
  if (typeof DecompressionStream === 'undefined') {
    throw new PayloadError('this browser lacks DecompressionStream; open the page in a current browser');
  }
  let text: string;
  try {
    const bytes = base64Bytes(data as string);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    text = await boundedText(stream);
  } catch (e) {
    if (e instanceof PayloadError) {
      throw e;
    }
    throw new PayloadError(`data: not gzip+base64 (${String(e)})`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new PayloadError('data: the unpacked text is not JSON');
  }
  if (!isObj(body)) {
    fail('data', 'a JSON object once unpacked', body);
  }
  return { ...body, notes: packed.notes ?? [] };
}
