// OpenAI's Chat Completions endpoint: the request as the client sent it (minus the
// `optimizer` annotation, removed upstream of here), and the vendor's errors mapped
// onto our catalogue with the vendor's own message.
import { ApiError, type ErrorCode } from '../../errors.ts';
import type { ProviderInfo } from '../registry.ts';

export interface BuiltRequest {
  url: URL;
  headers: Record<string, string>;
  body: string;
}

export function buildChatRequest(provider: ProviderInfo, body: Record<string, unknown>, apiKey: string): BuiltRequest {
  let sent = body;
  if (body.stream === true) {
    // Ask for the usage chunk so the call is metered from the vendor's own count;
    // the client only sees it if it asked for it.
    const opts = (body.stream_options ?? {}) as Record<string, unknown>;
    if (opts.include_usage !== true) sent = { ...body, stream_options: { ...opts, include_usage: true } };
  }
  return {
    url: new URL(`${provider.baseUrl}/chat/completions`),
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${apiKey}`,
      accept: body.stream === true ? 'text/event-stream' : 'application/json',
    },
    body: JSON.stringify(sent),
  };
}

function codeFor(status: number): ErrorCode {
  if (status === 429) return 'upstream_rate_limited';
  if (status === 401 || status === 403) return 'upstream_auth';
  if (status === 404) return 'upstream_not_found';
  if (status === 408 || status === 504) return 'upstream_timeout';
  if (status >= 400 && status < 500) return 'upstream_bad_request';
  return 'upstream_error';
}

/** Maps a vendor's error response onto our envelope, keeping its message and Retry-After. */
export function mapVendorError(provider: string, status: number, headers: Record<string, string | string[] | undefined>, text: string): ApiError {
  let vendor: { message?: string; type?: string; code?: string | null; param?: string | null } = {};
  try {
    const parsed = JSON.parse(text) as { error?: typeof vendor };
    if (parsed && typeof parsed.error === 'object' && parsed.error) vendor = parsed.error;
  } catch {
    /* not JSON */
  }
  const code = codeFor(status);
  const retryAfter = headers['retry-after'];
  const message = vendor.message ? `${provider}: ${vendor.message}` : `${provider} answered ${status}.`;
  return new ApiError(code, message, {
    param: vendor.param ?? null,
    headers: typeof retryAfter === 'string' ? { 'retry-after': retryAfter } : {},
    extra: { vendor_status: status, vendor_type: vendor.type ?? null, vendor_code: vendor.code ?? null },
  });
}
