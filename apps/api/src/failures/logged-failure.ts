// One failure as every transport logs and answers it (Fastify's error handler, the socket path):
// the catalogue's error it is, the level the catalogue logs it at, and the log line's fields.
import { isApiError, type ApiError } from '../errors.ts';
import { toApiError } from './to-api-error.ts';

export interface LoggedFailure {
  error: ApiError;
  level: ApiError['entry']['log'];
  /** The log line's fields: the code and status, and what caused it (an internal error whole, another's cause in brief). */
  fields: { code: string; status: number; err: unknown };
}

/** The catalogue's error for a failure, with its log level and fields. */
export function loggedFailure(err: unknown): LoggedFailure {
  const e = toApiError(err);
  const cause = e.code === 'internal' ? err : e.cause !== undefined && !isApiError(err) ? { code: (e.cause as { code?: unknown }).code, message: (e.cause as Error).message } : undefined;
  return { error: e, level: e.entry.log, fields: { code: e.code, status: e.status, err: cause } };
}
