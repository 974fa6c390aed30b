// Maps a vendor's HTTP error onto our catalogue: the status class picks the code,
// the vendor's own message and Retry-After are kept.
import { ApiError, type ErrorCode } from '../errors.ts';

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

export function vendorError(provider: string, status: number, headers: Record<string, string | string[] | undefined>, fields: VendorErrorFields): ApiError {
  const retryAfter = headers['retry-after'];
  const message = fields.message ? `${provider}: ${fields.message}` : `${provider} answered ${status}.`;
  return new ApiError(codeForStatus(status), message, {
    param: fields.param ?? null,
    headers: typeof retryAfter === 'string' ? { 'retry-after': retryAfter } : {},
    extra: { vendor_status: status, vendor_type: fields.type ?? null, vendor_code: fields.code ?? null },
  });
}

/** Parses a JSON body, or null. */
export function tryJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
