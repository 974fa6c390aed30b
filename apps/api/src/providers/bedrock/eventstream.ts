// The AWS event-stream framing (application/vnd.amazon.eventstream) that
// ConverseStream answers in, decoded incrementally: feed it any split of the bytes
// and it returns each message once all of it has arrived, both CRCs verified.
//
//   message  = prelude | prelude CRC32 | headers | payload | message CRC32
//   prelude  = total length (uint32 BE) | headers length (uint32 BE)
//   header   = name length (uint8) | name | type (uint8) | value
//
// The prelude CRC covers the first 8 bytes; the message CRC covers everything
// before it. Checking the prelude first means a corrupted length is caught at
// byte 12, not after waiting for gigabytes that will never come.
import { crc32 } from 'node:zlib';

export type HeaderValue = boolean | number | bigint | string | Buffer | Date;

export interface EventStreamMessage {
  headers: Record<string, HeaderValue>;
  payload: Buffer;
}

export class EventStreamError extends Error {
  override name = 'EventStreamError';
}

const PRELUDE = 8;
const PRELUDE_WITH_CRC = 12;
const MIN_MESSAGE = 16;
/** The service's own limits: 16 MiB per message, 128 KiB of headers. */
const MAX_MESSAGE = 16 * 1024 * 1024;
const MAX_HEADERS = 128 * 1024;

/** Header value types, by their type byte. */
const STRING = 7;
const BYTE_ARRAY = 6;

function readHeaders(buf: Buffer): Record<string, HeaderValue> {
  const out: Record<string, HeaderValue> = {};
  let at = 0;
  const need = (n: number) => {
    if (at + n > buf.length) throw new EventStreamError('event-stream header runs past its block');
  };
  while (at < buf.length) {
    need(1);
    const nameLen = buf.readUInt8(at);
    at += 1;
    need(nameLen + 1);
    const name = buf.toString('utf8', at, at + nameLen);
    at += nameLen;
    const type = buf.readUInt8(at);
    at += 1;
    let value: HeaderValue;
    switch (type) {
      case 0:
        value = true;
        break;
      case 1:
        value = false;
        break;
      case 2:
        need(1);
        value = buf.readInt8(at);
        at += 1;
        break;
      case 3:
        need(2);
        value = buf.readInt16BE(at);
        at += 2;
        break;
      case 4:
        need(4);
        value = buf.readInt32BE(at);
        at += 4;
        break;
      case 5:
        need(8);
        value = buf.readBigInt64BE(at);
        at += 8;
        break;
      case BYTE_ARRAY:
      case STRING: {
        need(2);
        const len = buf.readUInt16BE(at);
        at += 2;
        need(len);
        value = type === STRING ? buf.toString('utf8', at, at + len) : Buffer.from(buf.subarray(at, at + len));
        at += len;
        break;
      }
      case 8:
        need(8);
        value = new Date(Number(buf.readBigInt64BE(at)));
        at += 8;
        break;
      case 9:
        need(16);
        value = buf.toString('hex', at, at + 16);
        at += 16;
        break;
      default:
        throw new EventStreamError(`unknown event-stream header type ${type} for ${name}`);
    }
    out[name] = value;
  }
  return out;
}

/** Decodes one complete message (exactly `total` bytes), verifying both checksums. */
export function decodeMessage(msg: Buffer): EventStreamMessage {
  const total = msg.readUInt32BE(0);
  const headersLen = msg.readUInt32BE(4);
  if (total !== msg.length) throw new EventStreamError(`event-stream message is ${msg.length} bytes, its prelude says ${total}`);
  if (crc32(msg.subarray(0, PRELUDE)) !== msg.readUInt32BE(PRELUDE)) throw new EventStreamError('event-stream prelude checksum mismatch');
  if (crc32(msg.subarray(0, total - 4)) !== msg.readUInt32BE(total - 4)) throw new EventStreamError('event-stream message checksum mismatch');
  const headers = readHeaders(msg.subarray(PRELUDE_WITH_CRC, PRELUDE_WITH_CRC + headersLen));
  return { headers, payload: Buffer.from(msg.subarray(PRELUDE_WITH_CRC + headersLen, total - 4)) };
}

/** Incremental decoder: `push` returns the messages the bytes so far complete; throws EventStreamError on corruption. */
export class EventStreamDecoder {
  #buf: Buffer = Buffer.alloc(0);
  #checkedPrelude = false;

  push(bytes: Buffer): EventStreamMessage[] {
    this.#buf = this.#buf.length === 0 ? bytes : Buffer.concat([this.#buf, bytes]);
    const out: EventStreamMessage[] = [];
    for (;;) {
      if (this.#buf.length < PRELUDE_WITH_CRC) break;
      const total = this.#buf.readUInt32BE(0);
      if (!this.#checkedPrelude) {
        if (crc32(this.#buf.subarray(0, PRELUDE)) !== this.#buf.readUInt32BE(PRELUDE)) throw new EventStreamError('event-stream prelude checksum mismatch');
        const headersLen = this.#buf.readUInt32BE(4);
        if (total < MIN_MESSAGE || total > MAX_MESSAGE) throw new EventStreamError(`event-stream message length ${total} is out of range`);
        if (headersLen > MAX_HEADERS || headersLen > total - MIN_MESSAGE) throw new EventStreamError(`event-stream headers length ${headersLen} is out of range`);
        this.#checkedPrelude = true;
      }
      if (this.#buf.length < total) break;
      out.push(decodeMessage(this.#buf.subarray(0, total)));
      this.#buf = this.#buf.subarray(total);
      this.#checkedPrelude = false;
    }
    return out;
  }

  /** Bytes received that do not yet make a whole message. */
  get pending(): number {
    return this.#buf.length;
  }
}
