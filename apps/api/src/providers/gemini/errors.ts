// Gemini's errors (google.rpc.Status: {"error": {code, message, status, details}}) in
// our terms. Statuses are read from data, never from message text: the HTTP status the
// client should see follows from Google's status and ErrorInfo reason.
import type { ApiError } from '../../errors.ts';
import type { CallTarget } from '../types.ts';
import { tryJson, vendorError } from '../vendor-error.ts';
import { isRecord } from './guards.ts';

export interface GoogleStatus {
  code?: number;
  message?: string;
  status?: string;
  details?: unknown[];
}

export interface StatusOverride {
  status: string;
  /** The google.rpc.ErrorInfo reason, when the status alone is not enough. */
  reason?: string;
  httpStatus: number;
}

/** Where Gemini's HTTP status misleads the client. */
export const STATUS_OVERRIDES: readonly StatusOverride[] = [
  // A wrong or expired key is 400 INVALID_ARGUMENT on Gemini: to the client it is bad credentials.
  { status: 'INVALID_ARGUMENT', reason: 'API_KEY_INVALID', httpStatus: 401 },
  { status: 'UNAUTHENTICATED', httpStatus: 401 },
];

/** Google status → OpenAI error type, for errors the vendor reports inside a stream. */
export const ERROR_TYPES: Readonly<Record<string, string>> = {
  INVALID_ARGUMENT: 'invalid_request_error',
  FAILED_PRECONDITION: 'invalid_request_error',
  OUT_OF_RANGE: 'invalid_request_error',
  UNAUTHENTICATED: 'authentication_error',
  PERMISSION_DENIED: 'permission_error',
  NOT_FOUND: 'not_found_error',
  RESOURCE_EXHAUSTED: 'rate_limit_error',
  DEADLINE_EXCEEDED: 'timeout_error',
  CANCELLED: 'server_error',
  INTERNAL: 'server_error',
  UNAVAILABLE: 'server_error',
  UNKNOWN: 'server_error',
};

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
const RETRY_INFO = 'type.googleapis.com/google.rpc.RetryInfo';
const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';

function detail(e: GoogleStatus, type: string): Record<string, unknown> | undefined {
  return (e.details ?? []).find((d): d is Record<string, unknown> => isRecord(d) && d['@type'] === type);
}

export function errorReason(e: GoogleStatus): string | undefined {
  const r = detail(e, ERROR_INFO)?.reason;
  return typeof r === 'string' ? r : undefined;
}

/** RetryInfo.retryDelay ("1s", "37.5s") as whole seconds for Retry-After; Gemini sends no header. */
export function retryAfterSeconds(e: GoogleStatus): string | undefined {
  const delay = detail(e, RETRY_INFO)?.retryDelay;
  const m = typeof delay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(delay) : null;
  return m ? String(Math.max(1, Math.ceil(Number(m[1])))) : undefined;
}

export function googleStatus(text: string): GoogleStatus {
  const j = tryJson(text) as { error?: unknown } | unknown[] | null;
  // streamGenerateContent without alt=sse answers errors as a one-element array.
  const body = Array.isArray(j) ? j[0] : j;
  return isRecord(body) && isRecord(body.error) ? (body.error as GoogleStatus) : {};
}

export function mapGeminiError(status: number, headers: Record<string, string | string[] | undefined>, text: string, target: CallTarget): ApiError {
  const e = googleStatus(text);
  const reason = errorReason(e);
  const override = STATUS_OVERRIDES.find((o) => o.status === e.status && (o.reason === undefined || o.reason === reason));
  const retryAfter = typeof headers['retry-after'] === 'string' ? headers['retry-after'] : retryAfterSeconds(e);
  const violation = detail(e, BAD_REQUEST)?.fieldViolations;
  const field = Array.isArray(violation) && isRecord(violation[0]) && typeof violation[0].field === 'string' ? violation[0].field : null;
  const err = vendorError(target.provider.name, override?.httpStatus ?? status, retryAfter ? { ...headers, 'retry-after': retryAfter } : headers, {
    message: e.message,
    type: e.status ?? null,
    code: reason ?? e.status ?? null,
    param: field,
  });
  // The envelope reports what Gemini answered, even where the client sees another status.
  err.extra.vendor_status = status;
  return err;
}

/** An error event inside a stream, as the OpenAI error object the client reads (JSON text). */
export function streamErrorData(error: unknown): string {
  const e = (isRecord(error) ? error : {}) as GoogleStatus;
  const status = e.status ?? 'UNKNOWN';
  return JSON.stringify({
    error: {
      message: e.message ?? 'gemini reported an error in the stream.',
      type: ERROR_TYPES[status] ?? 'server_error',
      code: errorReason(e) ?? status,
      param: null,
    },
  });
}
