// Bedrock on AWS's maintained libraries, on generated inputs. The gateway's SigV4 signing
// (@smithy/signature-v4 behind sign.ts) is accepted by the mock vendor's verifier, written apart
// from it, for any method, host, path, query, headers, body, credentials and date, and refused
// once a signed part changes. The event-stream decoder (our framing, and
// @smithy/eventstream-codec for each message) gives back what the codec encoded, whole or
// split anywhere; AWS's own vectors and the recorded streams are in bedrock.test.ts.
import { EventStreamCodec, Int64, type MessageHeaders } from '@smithy/eventstream-codec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventStreamDecoder, EventStreamError } from '../../src/providers/bedrock/eventstream.ts';
import { verifySignature } from '@optimizer/mock-providers';
import { signRequest } from '../../src/providers/bedrock/sign.ts';

const RUNS = Number(process.env.DIFF_RUNS ?? 500);

// Header names the signer signs (smithy leaves out user-agent, connection and the like by design), values of printable ASCII with spaces and tabs.
const headerName = fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/).filter((n) => !['authorization', 'cache-control', 'connection', 'expect', 'from', 'keep-alive', 'max-forwards', 'pragma', 'referer', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'user-agent', 'x-amzn-trace-id', 'host', 'date', 'x-amz-date', 'x-amz-content-sha256', 'x-amz-security-token'].includes(n) && !/^(proxy|sec)-/.test(n));
const headerValue = fc.stringMatching(/^[ \t]*[!-~]([ \t!-~]{0,30}[!-~])?[ \t]*$/);
const segment = fc.oneof(fc.stringMatching(/^[A-Za-z0-9._~:-]{1,20}$/), fc.string({ minLength: 1, maxLength: 12 }).map((s) => encodeURIComponent(s)));
const request = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PUT'),
  host: fc.constantFrom('bedrock-runtime.us-east-1.amazonaws.com', 'bedrock-runtime.eu-west-3.amazonaws.com', '127.0.0.1:8443'),
  path: fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => `/${s.join('/')}`),
  query: fc.array(fc.tuple(fc.stringMatching(/^[A-Za-z0-9_.-]{1,8}$/), fc.string({ maxLength: 10 })), { maxLength: 3 }),
  headers: fc.dictionary(headerName, headerValue, { maxKeys: 4 }),
  body: fc.oneof(fc.string({ maxLength: 200 }), fc.json()),
  accessKeyId: fc.stringMatching(/^AKIA[A-Z0-9]{16}$/),
  secretAccessKey: fc.stringMatching(/^[A-Za-z0-9/+]{40}$/),
  sessionToken: fc.option(fc.stringMatching(/^[A-Za-z0-9/+=]{20,80}$/), { nil: undefined }),
  region: fc.constantFrom('us-east-1', 'us-west-2', 'eu-central-1', 'ap-southeast-2'),
  date: fc.date({ min: new Date('2015-01-01T00:00:00Z'), max: new Date('2035-12-31T23:59:59Z'), noInvalidDate: true }),
  contentSha256Header: fc.boolean(),
});

/** SigV4's URI encoding: everything but A-Z a-z 0-9 - _ . ~ as uppercase %XX of its UTF-8 bytes. */
const uriEncode = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

describe('SigV4 on @smithy/signature-v4 against the mock vendor\'s verifier', () => {
  it(`signs ${RUNS} generated requests so that the verifier accepts them, and refuses them once the body changes`, async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        // whole seconds: the signature's clock reading has no milliseconds
        const date = new Date(Math.floor(r.date.getTime() / 1000) * 1000);
        const query = r.query.map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`).join('&');
        const credentials = r.sessionToken === undefined ? { accessKeyId: r.accessKeyId, secretAccessKey: r.secretAccessKey } : { accessKeyId: r.accessKeyId, secretAccessKey: r.secretAccessKey, sessionToken: r.sessionToken };
        const signed = await signRequest({ method: r.method, host: r.host, path: r.path, query, headers: r.headers, body: r.body }, { credentials, region: r.region, service: 'bedrock', date, contentSha256Header: r.contentSha256Header });
        expect(signed.headers.host).toBe(r.host);
        const received = (body: string) => ({ method: r.method, url: query ? `${r.path}?${query}` : r.path, headers: signed.headers, body: Buffer.from(body) });
        expect(verifySignature(received(r.body), credentials, r.region, 'bedrock', date.getTime())).toBeNull();
        expect(verifySignature(received(`${r.body}.`), credentials, r.region, 'bedrock', date.getTime())).not.toBeNull();
      }),
      { numRuns: RUNS },
    );
  });
});

const toUtf8 = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');
const fromUtf8 = (s: string) => Buffer.from(s, 'utf8');
const codec = new EventStreamCodec(toUtf8, fromUtf8);
const headerValueArb = fc.oneof(
  fc.boolean().map((value) => ({ type: 'boolean' as const, value })),
  fc.integer({ min: -128, max: 127 }).map((value) => ({ type: 'byte' as const, value })),
  fc.integer({ min: -32768, max: 32767 }).map((value) => ({ type: 'short' as const, value })),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }).map((value) => ({ type: 'integer' as const, value })),
  fc.bigInt({ min: -(2n ** 53n), max: 2n ** 53n }).map((v) => ({ type: 'long' as const, value: Int64.fromNumber(Number(v)) })),
  fc.uint8Array({ maxLength: 40 }).map((value) => ({ type: 'binary' as const, value })),
  fc.string({ maxLength: 40 }).map((value) => ({ type: 'string' as const, value })),
  fc.date({ min: new Date(0), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((value) => ({ type: 'timestamp' as const, value })),
  fc.uuid().map((value) => ({ type: 'uuid' as const, value })),
);
const message = fc.record({
  headers: fc.dictionary(fc.stringMatching(/^:?[a-z][a-z-]{0,20}$/), headerValueArb, { maxKeys: 6 }),
  body: fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.json().map((j) => new Uint8Array(fromUtf8(j)))),
});

/** Splits `bytes` at the given cut points. */
function pieces(bytes: Buffer, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const c of [...at, bytes.length]) {
    if (c > from) out.push(bytes.subarray(from, c));
    from = Math.max(from, c);
  }
  return out;
}

function decodeAll(decoder: { push(b: Buffer): unknown[] }, parts: Buffer[]): unknown[] {
  return parts.flatMap((p) => decoder.push(Buffer.from(p)));
}

/** What the decoder gives for a header the codec encoded. */
function expected(h: { type: string; value: unknown }): unknown {
  switch (h.type) {
    case 'long':
      return BigInt((h.value as Int64).toString());
    case 'binary':
      return Buffer.from(h.value as Uint8Array);
    case 'uuid':
      return (h.value as string).replace(/-/g, '');
    case 'timestamp':
      return new Date((h.value as Date).getTime());
    default:
      return h.value;
  }
}

describe('event stream: the decoder (our framing, @smithy/eventstream-codec per message) on generated streams', () => {
  it(`gives back ${RUNS} generated streams' messages, whatever the split`, () => {
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { maxLength: 6 }), (msgs, cuts) => {
        const stream = Buffer.concat(msgs.map((m) => codec.encode({ headers: m.headers as MessageHeaders, body: m.body })));
        const decoder = new EventStreamDecoder();
        const got = decodeAll(decoder, pieces(stream, cuts));
        expect(got).toEqual(msgs.map((m) => ({ headers: Object.fromEntries(Object.entries(m.headers).map(([k, h]) => [k, expected(h)])), payload: Buffer.from(m.body) })));
        expect(decoder.pending).toBe(0);
      }),
      { numRuns: RUNS },
    );
  });

  it('refuses a flipped byte anywhere after the prelude', () => {
    fc.assert(
      fc.property(message, fc.nat(), (m, at) => {
        const bytes = Buffer.from(codec.encode({ headers: m.headers as MessageHeaders, body: m.body }));
        const i = 12 + (at % (bytes.length - 12));
        bytes[i] = bytes[i]! ^ 0xff;
        expect(() => new EventStreamDecoder().push(bytes)).toThrow(EventStreamError);
      }),
      { numRuns: Math.min(RUNS, 200) },
    );
  });
});
