// AWS Signature Version 4 over node:crypto: a pure function from a request
// description, credentials and a clock reading to the headers that sign it.
// Checked against AWS's published SigV4 test suite (fixtures/sigv4-vectors.json).
//
// The canonical URI is the path as sent on the request line, each segment
// URI-encoded once more: every service but S3 expects this "double" encoding, so a
// Bedrock model id `…-v1:0` travels as `…-v1%3A0` and is signed as `…-v1%253A0`.
import { createHash, createHmac } from 'node:crypto';

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
  canonicalRequest: string;
  stringToSign: string;
  signature: string;
  authorization: string;
  /** Every signed header (host included) plus `authorization`, lowercase names. */
  headers: Record<string, string>;
}

const ALGORITHM = 'AWS4-HMAC-SHA256';

/** SigV4's URI encoding: everything but A-Z a-z 0-9 - _ . ~ as uppercase %XX of its UTF-8 bytes. */
export function uriEncode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/** yyyymmddThhmmssZ */
export function amzDate(d: Date): string {
  return d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

/** Removes empty, `.` and `..` segments, then encodes each remaining segment. */
export function canonicalUri(path: string): string {
  const segments: string[] = [];
  for (const seg of path.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') segments.pop();
    else segments.push(seg);
  }
  if (segments.length === 0) return '/';
  return `/${segments.map(uriEncode).join('/')}${path.endsWith('/') ? '/' : ''}`;
}

function decodeQueryPart(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Parameters decoded, re-encoded the SigV4 way and sorted by name, then value (byte order). */
export function canonicalQuery(query: string | undefined): string {
  if (!query) return '';
  const pairs = query
    .split('&')
    .filter((p) => p !== '')
    .map((p) => {
      const eq = p.indexOf('=');
      const k = eq === -1 ? p : p.slice(0, eq);
      const v = eq === -1 ? '' : p.slice(eq + 1);
      return [uriEncode(decodeQueryPart(k)), uriEncode(decodeQueryPart(v))] as const;
    });
  pairs.sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

function trimValue(v: string): string {
  return v.trim().replace(/\s+/g, ' ');
}

export function signingKey(secretAccessKey: string, day: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, day), region), service), 'aws4_request');
}

export function signRequest(req: SignableRequest, ctx: SigningContext): SignedRequest {
  const stamp = amzDate(ctx.date);
  const day = stamp.slice(0, 8);
  const payloadHash = sha256Hex(req.body);

  const all = new Map<string, string[]>();
  const add = (name: string, value: string | string[]) => {
    const key = name.toLowerCase();
    all.set(key, [...(all.get(key) ?? []), ...(Array.isArray(value) ? value : [value])]);
  };
  for (const [name, value] of Object.entries(req.headers)) add(name, value);
  all.set('host', [req.host]);
  all.set('x-amz-date', [stamp]);
  if (ctx.contentSha256Header) all.set('x-amz-content-sha256', [payloadHash]);
  if (ctx.credentials.sessionToken) all.set('x-amz-security-token', [ctx.credentials.sessionToken]);

  const names = [...all.keys()].sort();
  const joined = new Map(names.map((n) => [n, all.get(n)!.map(trimValue).join(',')]));
  const signedHeaders = names.join(';');
  const canonicalRequest = [
    req.method.toUpperCase(),
    canonicalUri(req.path),
    canonicalQuery(req.query),
    names.map((n) => `${n}:${joined.get(n)}\n`).join(''),
    signedHeaders,
    payloadHash,
  ].join('\n');

  const scope = `${day}/${ctx.region}/${ctx.service}/aws4_request`;
  const stringToSign = [ALGORITHM, stamp, scope, sha256Hex(canonicalRequest)].join('\n');
  const signature = createHmac('sha256', signingKey(ctx.credentials.secretAccessKey, day, ctx.region, ctx.service))
    .update(stringToSign, 'utf8')
    .digest('hex');
  const authorization = `${ALGORITHM} Credential=${ctx.credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return { canonicalRequest, stringToSign, signature, authorization, headers: { ...Object.fromEntries(joined), authorization } };
}
