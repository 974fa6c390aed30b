// The AWS event-stream framing (application/vnd.amazon.eventstream) that
// ConverseStream answers in, decoded incrementally: feed it any split of the bytes
// and it returns each message once all of it has arrived, both CRCs verified.
//
//   message  = prelude | prelude CRC32 | headers | payload | message CRC32
//   prelude  = total length (uint32 BE) | headers length (uint32 BE)
//
// The framing is ours: the prelude is checked first, so a corrupted length is caught at
// byte 12, not after waiting for gigabytes that will never come. Each whole message is
// decoded by AWS's maintained codec (@smithy/eventstream-codec: headers, payload, both
// CRCs); docs/decisions.md "Bedrock on AWS's libraries" has the measurement.
import { EventStreamCodec, type MessageHeaderValue } from '@smithy/eventstream-codec';
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

const toUtf8 = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');
const fromUtf8 = (s: string): Uint8Array => Buffer.from(s, 'utf8');
const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** The codec's tagged value as the stream decoder reads it: a long as bigint, bytes as a Buffer, a UUID as 32 hex digits. */
function headerValue(h: MessageHeaderValue): HeaderValue {
  switch (h.type) {
    case 'long':
      return BigInt(h.value.toString());
    case 'binary':
      return Buffer.from(h.value);
    case 'uuid':
      return h.value.replace(/-/g, '');
    default:
      return h.value;
  }
}

/** Decodes one complete message (exactly its prelude's length), both checksums verified by the codec. */
export function decodeMessage(msg: Uint8Array): EventStreamMessage {
  let decoded;
  try {
    decoded = codec.decode(msg);
  } catch (err) {
    throw new EventStreamError(`event-stream message refused: ${(err as Error).message}`);
  }
  const headers: Record<string, HeaderValue> = {};
  for (const [name, h] of Object.entries(decoded.headers)) headers[name] = headerValue(h);
  return { headers, payload: Buffer.from(decoded.body) }; // a copy: the bytes read may be a buffer the caller reuses
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
