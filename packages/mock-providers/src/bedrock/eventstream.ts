// The AWS event-stream framing ConverseStream answers in (application/vnd.amazon.eventstream):
//   total length (u32 BE) | headers length (u32 BE) | prelude CRC32 | headers | payload | message CRC32
// Headers here are all strings (type 7: u16 BE length + UTF-8), which is all Bedrock sends.
import { crc32 } from 'node:zlib';

const STRING_TYPE = 7;

export function encodeHeaders(headers: Record<string, string>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const n = Buffer.from(name, 'utf8');
    const v = Buffer.from(value, 'utf8');
    const head = Buffer.alloc(1 + n.length + 1 + 2);
    head.writeUInt8(n.length, 0);
    n.copy(head, 1);
    head.writeUInt8(STRING_TYPE, 1 + n.length);
    head.writeUInt16BE(v.length, 2 + n.length);
    parts.push(head, v);
  }
  return Buffer.concat(parts);
}

/** One framed message. */
export function encodeMessage(headers: Record<string, string>, payload: Buffer | string): Buffer {
  const h = encodeHeaders(headers);
  const p = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const total = 12 + h.length + p.length + 4;
  const out = Buffer.alloc(total);
  out.writeUInt32BE(total, 0);
  out.writeUInt32BE(h.length, 4);
  out.writeUInt32BE(crc32(out.subarray(0, 8)), 8);
  h.copy(out, 12);
  p.copy(out, 12 + h.length);
  out.writeUInt32BE(crc32(out.subarray(0, total - 4)), total - 4);
  return out;
}

/** A ConverseStream event (`:message-type: event`) with a JSON payload. */
export function eventMessage(eventType: string, payload: unknown): Buffer {
  return encodeMessage({ ':event-type': eventType, ':content-type': 'application/json', ':message-type': 'event' }, JSON.stringify(payload));
}

/** A modelled exception inside the stream (`:message-type: exception`). */
export function exceptionMessage(exceptionType: string, payload: unknown): Buffer {
  return encodeMessage({ ':exception-type': exceptionType, ':content-type': 'application/json', ':message-type': 'exception' }, JSON.stringify(payload));
}
