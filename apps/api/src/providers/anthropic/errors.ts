// Anthropic's error envelope, {"type":"error","error":{"type","message"},"request_id"},
// onto our catalogue (HTTP errors) and onto OpenAI's in-stream error object (an
// `event: error` inside a 200 stream, e.g. overloaded_error).
import type { ApiError } from '../../errors.ts';
import { tryJson, vendorError } from '../vendor-error.ts';
import type { CallTarget } from '../types.ts';
import type { AnthropicErrorBody } from './wire.ts';

function errorFields(text: string): { type?: string; message?: string } {
  const j = tryJson(text) as Partial<AnthropicErrorBody> | null;
  return j && typeof j.error === 'object' && j.error ? j.error : {};
}

/** 400 invalid_request_error, 401 authentication_error, 403 permission_error, 404 not_found_error, 413 request_too_large, 429 rate_limit_error, 500 api_error, 529 overloaded_error. */
export function mapAnthropicError(status: number, headers: Record<string, string | string[] | undefined>, text: string, target: CallTarget): ApiError {
  const e = errorFields(text);
  return vendorError(target.provider.name, status, headers, { message: e.message, type: e.type ?? null, code: e.type ?? null });
}

/** An in-stream `error` event's data as the OpenAI error object the client reads. */
export function streamErrorData(provider: string, data: unknown): string {
  const e = ((data as Partial<AnthropicErrorBody> | null)?.error ?? {}) as { type?: string; message?: string };
  const message = `${provider}: ${e.message ?? 'the stream failed'}`;
  return JSON.stringify({ error: { message, type: e.type ?? 'api_error', code: e.type ?? null, param: null } });
}
