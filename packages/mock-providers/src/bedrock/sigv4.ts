// The mock's side of SigV4: from the request as received (raw path, headers, body
// bytes) and the secret it was started with, recompute the signature and answer the
// way Bedrock does when something is off. Written apart from the gateway's signer
// so a mistake in one is not mirrored in the other.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { awsError, type AwsError } from './errors.ts';

export interface MockCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

const SKEW_MS = 5 * 60 * 1000;
const AUTH = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/;

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** RFC 3986 unreserved characters stay, everything else is %XX (uppercase) of its UTF-8 bytes. */
function encode(segment: string): string {
  let out = '';
  for (const byte of Buffer.from(segment, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The canonical URI of a non-S3 service: the path as received, dot segments removed, each segment encoded again. */
export function canonicalPath(rawPath: string): string {
  const kept: string[] = [];
  for (const seg of rawPath.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') kept.pop();
    else kept.push(encode(seg));
  }
  return kept.length === 0 ? '/' : `/${kept.join('/')}${rawPath.endsWith('/') ? '/' : ''}`;
}

function canonicalQueryString(raw: string): string {
  if (raw === '') return '';
  const dec = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  return raw
    .split('&')
    .filter(Boolean)
    .map((p) => {
      const [k = '', ...v] = p.split('=');
      return [encode(dec(k)), encode(dec(v.join('=')))] as const;
    })
    .sort(([ak, av], [bk, bv]) => (ak === bk ? (av < bv ? -1 : av > bv ? 1 : 0) : ak < bk ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  if (v === undefined) return undefined;
  return (Array.isArray(v) ? v : [v]).map((x) => x.trim().replace(/\s+/g, ' ')).join(',');
}

export interface ReceivedRequest {
  method: string;
  /** The request-target as received: path and optional query. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const invalidSignature = (message: string) => awsError(403, 'InvalidSignatureException', message);
const MISMATCH = invalidSignature(
  'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
);

/** Null when the request is signed by `creds` for `region`/`service`; else Bedrock's refusal. */
export function verifySignature(req: ReceivedRequest, creds: MockCredentials, region: string, service: string, now: number = Date.now()): AwsError | null {
  const authorization = req.headers.authorization;
  if (!authorization) return awsError(403, 'MissingAuthenticationTokenException', 'Missing Authentication Token');
  const m = AUTH.exec(authorization);
  if (!m) return awsError(400, 'IncompleteSignatureException', `Authorization header requires 'Credential', 'Signature' and 'SignedHeaders' parameters of AWS4-HMAC-SHA256. Authorization=${authorization.split(' ')[0]}`);
  const [, credential, signedList, given] = m as unknown as [string, string, string, string];
  const [akid, day, scopeRegion, scopeService, terminator] = credential.split('/');
  if (!akid || !same(akid, creds.accessKeyId)) return awsError(403, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
  const presented = headerValue(req.headers, 'x-amz-security-token');
  if (creds.sessionToken !== undefined && (presented === undefined || !same(presented, creds.sessionToken))) {
    return awsError(403, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
  }
  if (terminator !== 'aws4_request') return invalidSignature("Credential should be scoped with a valid terminator: 'aws4_request'.");
  if (scopeService !== service) return invalidSignature(`Credential should be scoped to correct service: '${service}'. `);
  if (scopeRegion !== region) return invalidSignature(`Credential should be scoped to a valid region. `);
  const stamp = headerValue(req.headers, 'x-amz-date');
  if (!stamp || !/^\d{8}T\d{6}Z$/.test(stamp)) return awsError(400, 'IncompleteSignatureException', 'Authorization header requires existence of either a \'X-Amz-Date\' or a \'Date\' header.');
  if (stamp.slice(0, 8) !== day) return invalidSignature(`Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '${day}' != '${stamp.slice(0, 8)}', from '${stamp}'.`);
  const at = Date.parse(`${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}T${stamp.slice(9, 11)}:${stamp.slice(11, 13)}:${stamp.slice(13, 15)}Z`);
  if (Math.abs(now - at) > SKEW_MS) return invalidSignature(`Signature expired: ${stamp} is now earlier than ${new Date(now - SKEW_MS).toISOString()} (${new Date(now).toISOString()} - 5 min.)`);

  const signed = signedList.split(';');
  if (!signed.includes('host')) return invalidSignature("'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.");
  const payloadHash = sha256(req.body);
  const declared = headerValue(req.headers, 'x-amz-content-sha256');
  if (declared !== undefined && declared !== 'UNSIGNED-PAYLOAD' && !same(declared, payloadHash)) {
    return invalidSignature("The provided 'x-amz-content-sha256' header does not match what was computed.");
  }
  const q = req.url.indexOf('?');
  const rawPath = q === -1 ? req.url : req.url.slice(0, q);
  const canonical = [
    req.method,
    canonicalPath(rawPath),
    canonicalQueryString(q === -1 ? '' : req.url.slice(q + 1)),
    signed.map((h) => `${h}:${headerValue(req.headers, h) ?? ''}\n`).join(''),
    signedList,
    payloadHash,
  ].join('\n');
  const toSign = ['AWS4-HMAC-SHA256', stamp, `${day}/${scopeRegion}/${scopeService}/aws4_request`, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${creds.secretAccessKey}`, day), scopeRegion), scopeService), 'aws4_request');
  const expected = createHmac('sha256', key).update(toSign).digest('hex');
  return same(expected, given) ? null : MISMATCH;
}

/** Signs a request the way an AWS SDK does, for tests of the mock itself. */
export function signForTest(req: Omit<ReceivedRequest, 'headers'> & { host: string; headers?: Record<string, string> }, creds: MockCredentials, region: string, service: string, now = new Date()): Record<string, string> {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const headers: Record<string, string> = { ...req.headers, host: req.host, 'x-amz-date': stamp, ...(creds.sessionToken ? { 'x-amz-security-token': creds.sessionToken } : {}) };
  const names = Object.keys(headers).map((h) => h.toLowerCase()).sort();
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v.trim().replace(/\s+/g, ' ')]));
  const q = req.url.indexOf('?');
  const canonical = [req.method, canonicalPath(q === -1 ? req.url : req.url.slice(0, q)), canonicalQueryString(q === -1 ? '' : req.url.slice(q + 1)), names.map((n) => `${n}:${lower[n]}\n`).join(''), names.join(';'), sha256(req.body)].join('\n');
  const day = stamp.slice(0, 8);
  const toSign = ['AWS4-HMAC-SHA256', stamp, `${day}/${region}/${service}/aws4_request`, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${creds.secretAccessKey}`, day), region), service), 'aws4_request');
  const signature = createHmac('sha256', key).update(toSign).digest('hex');
  const { host: _host, ...rest } = lower;
  return { ...rest, authorization: `AWS4-HMAC-SHA256 Credential=${creds.accessKeyId}/${day}/${region}/${service}/aws4_request, SignedHeaders=${names.join(';')}, Signature=${signature}` };
}
