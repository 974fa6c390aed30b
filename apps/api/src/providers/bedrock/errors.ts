// Bedrock's errors → our catalogue. Over HTTP an error is `{"message": "..."}` with
// its type in the `x-amzn-ErrorType` header (`ThrottlingException:http://…`); the
// status picks the code (403 → 401, 429 keeps Retry-After, 5xx → 502), and a few
// types whose status says less than their name are overridden. Inside a stream an
// exception is an event-stream message (`:exception-type`), turned into OpenAI's
// error object for the client.
import { ApiError, type ErrorCode } from '../../errors.ts';
import type { CallTarget } from '../types.ts';
import { tryJson, vendorError, vendorMessage } from '../vendor-error.ts';

/** Types whose HTTP status maps to the wrong code by class alone. */
const CODE_BY_TYPE: Record<string, ErrorCode> = {
  // 424: the model itself failed; retryable like any upstream failure.
  ModelErrorException: 'upstream_error',
  ModelStreamErrorException: 'upstream_error',
  // 400s that are about the credentials, not the request.
  IncompleteSignatureException: 'upstream_auth',
  ExpiredTokenException: 'upstream_auth',
  InvalidSignatureException: 'upstream_auth',
  UnrecognizedClientException: 'upstream_auth',
  MissingAuthenticationTokenException: 'upstream_auth',
};

/** `ValidationException:http://internal.amazon.com/…` → `ValidationException`; else the body's __type / code. */
export function errorType(headers: Record<string, string | string[] | undefined>, body: Record<string, any> | null): string | null {
  const h = headers['x-amzn-errortype'];
  const raw = (Array.isArray(h) ? h[0] : h) ?? body?.__type ?? body?.code ?? null;
  if (typeof raw !== 'string' || raw === '') return null;
  return raw.split(':')[0]!.split('#').at(-1)!;
}

export function mapBedrockError(status: number, headers: Record<string, string | string[] | undefined>, text: string, target: CallTarget): ApiError {
  const body = tryJson(text) as Record<string, any> | null;
  const type = errorType(headers, body);
  const message = body?.message ?? body?.Message;
  const base = vendorError(target.provider.name, status, headers, { message: typeof message === 'string' ? message : undefined, type, code: type });
  const code = type ? CODE_BY_TYPE[type] : undefined;
  if (!code || code === base.code) return base;
  return new ApiError(code, vendorMessage(target.provider.name, code), { param: base.param, headers: base.headers, extra: base.extra });
}

const STREAM_ERROR_TYPE: Record<string, string> = {
  throttlingException: 'rate_limit_error',
  validationException: 'invalid_request_error',
  serviceUnavailableException: 'upstream_error',
  internalServerException: 'upstream_error',
  modelStreamErrorException: 'upstream_error',
};

/** An exception event inside a 200 stream, as OpenAI's error object (JSON text). */
export function streamErrorData(provider: string, exceptionType: string, payload: Buffer): string {
  const j = tryJson(payload.toString('utf8')) as Record<string, any> | null;
  const message = typeof j?.message === 'string' ? j.message : typeof j?.Message === 'string' ? j.Message : `${exceptionType} in the response stream`;
  return JSON.stringify({ error: { message: `${provider}: ${message}`, type: STREAM_ERROR_TYPE[exceptionType] ?? 'upstream_error', code: exceptionType } });
}
