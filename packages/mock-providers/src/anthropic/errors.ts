// Anthropic's error envelope: {"type":"error","error":{"type","message"},"request_id"}.
// Status ↔ type: 400 invalid_request_error, 401 authentication_error, 403
// permission_error, 404 not_found_error, 413 request_too_large, 429 rate_limit_error,
// 500 api_error, 529 overloaded_error.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { ApiError as OpenAIFault } from '../openai/errors.ts';

export interface AnthropicError {
  status: number;
  type: string;
  message: string;
  headers?: Record<string, string>;
}

export function errorBody(e: AnthropicError, requestId: string): Record<string, unknown> {
  return { type: 'error', error: { type: e.type, message: e.message }, request_id: requestId };
}

export function invalidRequest(message: string): AnthropicError {
  return { status: 400, type: 'invalid_request_error', message };
}

export const INVALID_JSON = invalidRequest('There was an error parsing the body of your request: it is not valid JSON.');
export const NOT_FOUND: AnthropicError = { status: 404, type: 'not_found_error', message: 'Not Found' };
export const OVERLOADED: AnthropicError = { status: 529, type: 'overloaded_error', message: 'Overloaded' };
export const INTERNAL: AnthropicError = { status: 500, type: 'api_error', message: 'Internal server error' };

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/** x-api-key auth, compared in constant time. */
export function authError(given: string | string[] | undefined, expected: string): AnthropicError | null {
  if (typeof given !== 'string' || given === '') return { status: 401, type: 'authentication_error', message: 'x-api-key header is required' };
  if (timingSafeEqual(digest(given), digest(expected))) return null;
  return { status: 401, type: 'authentication_error', message: 'invalid x-api-key' };
}

export function versionError(version: string | string[] | undefined): AnthropicError | null {
  if (typeof version === 'string' && version !== '') return null;
  return invalidRequest('anthropic-version: header is required');
}

/**
 * The shared fault plan (faults.ts) speaks OpenAI's envelope; the same faults in
 * Anthropic's terms: 429 rate_limit_error with Retry-After and anthropic-ratelimit-*
 * headers, a 503 (the flaky model) as 529 overloaded_error, other 5xx as api_error.
 */
export function fromFault(fault: OpenAIFault): AnthropicError {
  if (fault.status === 429) {
    return {
      status: 429,
      type: 'rate_limit_error',
      message:
        'This request would exceed the rate limit for your organization (mock-org) of 3 requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later.',
      headers: {
        'retry-after': fault.headers?.['retry-after'] ?? '1',
        'anthropic-ratelimit-requests-limit': '3',
        'anthropic-ratelimit-requests-remaining': '0',
        'anthropic-ratelimit-requests-reset': new Date(Date.now() + 1000).toISOString().replace(/\.\d+Z$/, 'Z'),
      },
    };
  }
  if (fault.status === 503) return OVERLOADED;
  if (fault.status >= 500) return INTERNAL;
  return invalidRequest(fault.body.error.message);
}
