// AWS Signature Version 4 on AWS's maintained signer (@smithy/signature-v4), with node:crypto
// as its hash: from a request description, credentials and a clock reading to the headers that
// sign it. Checked against AWS's published SigV4 test suite (fixtures/sigv4-vectors.json) and,
// on generated requests, against the mock vendor's verifier, which is written apart.
//
// The path is given as sent on the request line (already percent-encoded for the wire); the
// signer encodes each segment once more, as every service but S3 expects, so a Bedrock model
// id `…-v1:0` travels as `…-v1%3A0` and is signed as `…-v1%253A0`.
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface SignableRequest {
  method: string;
  /** The Host header value (host, plus :port when not the scheme's default). */
  host: string;
  /** The path as sent on the request line (already percent-encoded for the wire). */
  path: string;
  /** The raw query string, without the leading `?`. */
  query?: string;
  /** Headers to sign besides host, x-amz-date and the ones the signer adds. */
  headers: Record<string, string | string[]>;
  body: string | Buffer;
}

export interface SigningContext {
  credentials: AwsCredentials;
  region: string;
  service: string;
  date: Date;
  /** Also send and sign `x-amz-content-sha256` (Bedrock accepts it; the generic suite omits it). */
  contentSha256Header?: boolean;
}

export interface SignedRequest {
  authorization: string;
  /** Every header to send (host included) plus `authorization`, lowercase names. */
  headers: Record<string, string>;
}

type SourceData = string | ArrayBuffer | ArrayBufferView;

function bytes(data: SourceData): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}

/** SHA-256 (or its HMAC, given a secret) over node:crypto, in the shape the signer asks for. */
class NodeSha256 {
  readonly #h: Hash | Hmac;
  constructor(...args: [SourceData?]) {
    this.#h = args[0] === undefined ? createHash('sha256') : createHmac('sha256', bytes(args[0]));
  }
  update(data: Uint8Array): void {
    this.#h.update(data);
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(this.#h.digest());
  }
}

const decode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/** The query string as the signer takes it: decoded names to decoded values (repeated names as lists). */
function queryRecord(query: string | undefined): Record<string, string | string[]> {
  if (!query) return {};
  const out = new Map<string, string | string[]>(); // a Map: a name such as `__proto__` is a parameter, not the prototype's
  for (const p of query.split('&')) {
    if (p === '') continue;
    const eq = p.indexOf('=');
    const k = decode(eq === -1 ? p : p.slice(0, eq));
    const v = decode(eq === -1 ? '' : p.slice(eq + 1));
    const had = out.get(k);
    out.set(k, had === undefined ? v : [...(Array.isArray(had) ? had : [had]), v]);
  }
  return Object.fromEntries(out);
}

/** Signs `req`: every header to send (host included) plus `authorization`, lowercase names. */
export async function signRequest(req: SignableRequest, ctx: SigningContext): Promise<SignedRequest> {
  const signer = new SignatureV4({ credentials: ctx.credentials, region: ctx.region, service: ctx.service, sha256: NodeSha256, applyChecksum: ctx.contentSha256Header === true });
  const headers: Record<string, string> = { host: req.host };
  for (const [name, value] of Object.entries(req.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value.map((v) => v.trim()).join(',') : value;
  const [hostname, port] = req.host.split(':');
  const signed = await signer.sign(
    { method: req.method.toUpperCase(), protocol: 'https:', hostname: hostname!, port: port === undefined ? undefined : Number(port), path: req.path, query: queryRecord(req.query), headers, body: req.body },
    { signingDate: ctx.date },
  );
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(signed.headers)) out[k.toLowerCase()] = v;
  return { authorization: out.authorization!, headers: out };
}
