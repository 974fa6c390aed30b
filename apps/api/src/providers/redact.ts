// Every secret the gateway sent to a vendor is kept out of what it logs and returns:
// the key (and each part of a composite one, such as AWS credentials), the values of
// credential headers, and credential-like query parameters. A vendor that echoes them
// back (in an error, a header, a stream event) has them replaced by `[redacted]`.
import { ApiError } from '../errors.ts';
import type { CallTarget } from './types.ts';

const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'x-api-key', 'api-key', 'x-goog-api-key', 'x-amz-security-token', 'cookie']);
const CREDENTIAL_PARAM = /^(?:key|api[-_]?key|access[-_]?token|token|sig|signature|x-amz-.*|x-goog-.*)$/i;
/** Shorter values are too common to be secrets (and redacting them would garble text). */
const MIN_SECRET = 6;
export const REDACTED = '[redacted]';

/** The secrets one request carried, longest first. */
export function sentSecrets(target: Pick<CallTarget, 'apiKey'>, req?: { url?: URL; headers?: Record<string, string> }): string[] {
  const found = new Set<string>();
  const add = (v: string | undefined) => {
    const s = v?.trim();
    if (s && s.length >= MIN_SECRET) found.add(s);
  };
  add(target.apiKey);
  for (const part of target.apiKey.split(':')) add(part);
  for (const [name, value] of Object.entries(req?.headers ?? {})) {
    if (!CREDENTIAL_HEADERS.has(name.toLowerCase())) continue;
    add(value);
    for (const part of value.split(/[\s,=]+/)) add(part); // `Bearer <key>`, SigV4's `Signature=<hex>`
  }
  for (const [name, value] of req?.url?.searchParams ?? []) if (CREDENTIAL_PARAM.test(name)) add(value);
  return [...found].sort((a, b) => b.length - a.length);
}

/** `text` with every secret replaced. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}

function redactValue(v: unknown, secrets: readonly string[]): unknown {
  return typeof v === 'string' ? redact(v, secrets) : v;
}

/** An error as the tenant and the log may see it: no field repeats a secret that was sent. */
export function redactError(err: ApiError, secrets: readonly string[]): ApiError {
  if (secrets.length === 0) return err;
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(err.extra)) extra[k] = redactValue(v, secrets);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(err.headers)) headers[k] = redact(v, secrets);
  return new ApiError(err.code, redact(err.message, secrets), { param: err.param === null ? null : redact(err.param, secrets), headers, extra, cause: err.cause });
}
