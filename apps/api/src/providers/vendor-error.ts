// Maps a vendor's HTTP error onto our catalogue. The status class picks the code and the
// message is the catalogue's: a vendor's own text is never passed on, to the tenant or to
// the log, since vendors echo what they were sent (keys included). What is kept is what
// identifies the failure — the vendor's status, and its error type, code and parameter
// when they are short identifiers — and a Retry-After that is a number of seconds or a date.
import { ApiError, errorCatalogue, type ErrorCode } from '../errors.ts';

export function codeForStatus(status: number): ErrorCode {
  if (status === 429) return 'upstream_rate_limited';
  if (status === 401 || status === 403) return 'upstream_auth';
  if (status === 404) return 'upstream_not_found';
  if (status === 408 || status === 504) return 'upstream_timeout';
  if (status === 529) return 'upstream_error';
  if (status >= 400 && status < 500) return 'upstream_bad_request';
  return 'upstream_error';
}

export interface VendorErrorFields {
  message?: string;
  type?: string | null;
  code?: string | number | null;
  param?: string | null;
}

/** A vendor's error type, code or parameter name: short, and made of identifier characters only. */
const IDENTIFIER = /^[A-Za-z0-9][A-Za-z0-9_.:[\]-]{0,63}$/;

/** `v` when it is an identifier (or a number), else null: free text never travels on. */
export function vendorIdentifier(v: unknown): string | number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  return typeof v === 'string' && IDENTIFIER.test(v) ? v : null;
}

const RETRY_AFTER = /^(?:\d{1,9}|[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT)$/;

/** The catalogue's message for `code`, said of `provider`. */
export function vendorMessage(provider: string, code: ErrorCode): string {
  return `${provider}: ${errorCatalogue[code].message}`;
}

export function vendorError(provider: string, status: number, headers: Record<string, string | string[] | undefined>, fields: VendorErrorFields): ApiError {
  const retryAfter = headers['retry-after'];
  const code = codeForStatus(status);
  const param = vendorIdentifier(fields.param);
  return new ApiError(code, vendorMessage(provider, code), {
    param: typeof param === 'string' ? param : null,
    headers: typeof retryAfter === 'string' && RETRY_AFTER.test(retryAfter.trim()) ? { 'retry-after': retryAfter.trim() } : {},
    extra: { vendor_status: status, vendor_type: vendorIdentifier(fields.type), vendor_code: vendorIdentifier(fields.code) },
  });
}

/** OpenAI error `type` values a client may see for an error inside a stream. */
const STREAM_TYPES = new Set(['invalid_request_error', 'authentication_error', 'permission_error', 'not_found_error', 'rate_limit_error', 'timeout_error', 'server_error', 'api_error', 'upstream_error', 'overloaded_error']);

/**
 * An error a vendor reported inside a 200 stream, as the OpenAI error object the client
 * reads (JSON text): our words, the vendor's type and code only when they are identifiers.
 */
export function streamError(provider: string, data: string, secrets: readonly string[] = []): string {
  const j = tryJson(data) as { error?: unknown } | null;
  const e = (j && typeof j.error === 'object' && j.error !== null ? j.error : {}) as { type?: unknown; code?: unknown };
  const type = typeof e.type === 'string' && STREAM_TYPES.has(e.type) ? e.type : 'upstream_error';
  const code = vendorIdentifier(e.code);
  const leaks = typeof code === 'string' && secrets.some((s) => code.includes(s));
  return JSON.stringify({ error: { message: `${provider} reported an error in the stream.`, type, code: leaks ? null : code, param: null } });
}

/** Parses a JSON body, or null. */
export function tryJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
