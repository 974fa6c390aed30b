// Google's error envelope (google.rpc.Status): {"error": {code, message, status, details?}}.
import { timingSafeEqual } from 'node:crypto';

/** Canonical Google status → HTTP status. */
export const HTTP_STATUS = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  RESOURCE_EXHAUSTED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
} as const;
export type GoogleStatus = keyof typeof HTTP_STATUS;

export interface GoogleErrorBody {
  error: { code: number; message: string; status: GoogleStatus; details?: Record<string, unknown>[] };
}

export interface GoogleError {
  status: number;
  body: GoogleErrorBody;
  headers?: Record<string, string>;
}

export function googleError(status: GoogleStatus, message: string, details?: Record<string, unknown>[]): GoogleError {
  const code = HTTP_STATUS[status];
  return { status: code, body: { error: { code, message, status, ...(details ? { details } : {}) } } };
}

export const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest';

/** Protobuf-JSON parse failures: every violation listed, one per line, and in BadRequest details. */
export function payloadErrors(violations: { field: string; description: string }[]): GoogleError {
  return googleError('INVALID_ARGUMENT', violations.map((v) => v.description).join('\n'), [
    { '@type': BAD_REQUEST_TYPE, fieldViolations: violations.map((v) => (v.field ? { field: v.field, description: v.description } : { description: v.description })) },
  ]);
}

export function invalidArgument(message: string): GoogleError {
  return googleError('INVALID_ARGUMENT', message);
}

export const INVALID_JSON = payloadErrors([{ field: '', description: 'Invalid JSON payload received. Unexpected token.' }]);

export function methodNotFound(): GoogleError {
  return googleError('NOT_FOUND', 'Method not found.');
}

const KEY_INVALID_MESSAGE = 'API key not valid. Please pass a valid API key.';

/** No key → 403 PERMISSION_DENIED; a wrong key → 400 INVALID_ARGUMENT with reason API_KEY_INVALID. */
export function authError(given: string | undefined, expected: string): GoogleError | null {
  if (given === undefined || given === '') {
    return googleError(
      'PERMISSION_DENIED',
      "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
    );
  }
  if (sameText(given, expected)) return null;
  return googleError('INVALID_ARGUMENT', KEY_INVALID_MESSAGE, [
    { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } },
    { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message: KEY_INVALID_MESSAGE },
  ]);
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function modelNotFound(model: string, version: string): GoogleError {
  return googleError(
    'NOT_FOUND',
    `models/${model} is not found for API version ${version}, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`,
  );
}

/** Gemini's wording for the statuses the fault models produce (chosen by HTTP status). */
export function faultError(httpStatus: number, model: string, retryAfter: string | undefined): GoogleError {
  if (httpStatus === 429) {
    const delay = `${retryAfter ?? '1'}s`;
    return googleError(
      'RESOURCE_EXHAUSTED',
      `You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 3, model: ${model}\nPlease retry in ${delay}.`,
      [
        {
          '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
          violations: [
            {
              quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
              quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
              quotaDimensions: { location: 'global', model },
              quotaValue: '3',
            },
          ],
        },
        { '@type': 'type.googleapis.com/google.rpc.Help', links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }] },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: delay },
      ],
    );
  }
  if (httpStatus === 503) return googleError('UNAVAILABLE', 'The model is overloaded. Please try again later.');
  return internalError();
}

export function internalError(): GoogleError {
  return googleError('INTERNAL', 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting');
}
