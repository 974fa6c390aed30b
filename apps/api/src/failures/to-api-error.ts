// Every failure as the catalogue's error: ours as they are, Fastify's own (its parser's and its
// router's), the database's refusals of what a caller sent (the caller's input, never an
// outage), a dependency that cannot be reached (503 `unavailable`), and anything else `internal`.
// Every door and the pipeline answer through it, so one failure reads the same everywhere.
import type { FastifyError } from 'fastify';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { ApiError, isApiError } from '../errors.ts';
import { isDependencyDown } from './dependency-down.ts';

const fastifyCodes: Record<string, (e: FastifyError) => ApiError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => new ApiError('payload_too_large'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => new ApiError('unsupported_media_type'),
  FST_ERR_CTP_INVALID_TYPE: () => new ApiError('unsupported_media_type'),
  FST_ERR_CTP_EMPTY_TYPE: () => new ApiError('unsupported_media_type'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => new ApiError('invalid_json', 'The request body is empty; send a JSON object.'),
  FST_ERR_CTP_INVALID_JSON_BODY: () => new ApiError('invalid_json'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => new ApiError('invalid_request', 'Content-Length does not match the body.'),
  // the router's: a path that does not decode, a path parameter past its length
  FST_ERR_BAD_URL: () => new ApiError('invalid_request', 'The path is not valid percent-encoded UTF-8.'),
  FST_ERR_MAX_PARAM_LENGTH: () => new ApiError('invalid_request', 'A path parameter is longer than 100 characters.'),
  FST_ERR_ASYNC_CONSTRAINT: () => new ApiError('invalid_request'),
};

/**
 * PostgreSQL's refusals of a value (SQLSTATE classes 22 and 23, and 54: a value too large
 * for an index): the caller's input, never an outage. A text the database cannot store,
 * a string too long, a number out of range or not a number, a duplicate.
 */
function databaseInputError(code: string): ApiError | null {
  if (code === '23505') return new ApiError('conflict', 'That already exists.');
  if (code === '23503') return new ApiError('conflict', 'That refers to something that does not exist, or is still referred to.');
  if (code === '22P05' || code === '22021') return new ApiError('invalid_request', 'The request holds a NUL character or an unpaired UTF-16 surrogate, which cannot be stored.');
  if (code === '22001') return new ApiError('invalid_request', 'A value is longer than can be stored.');
  if (code === '22003') return new ApiError('invalid_request', 'A number is out of range.');
  if (code === '22P02') return new ApiError('invalid_request', 'A value is not in the form expected.');
  if (code === '22007' || code === '22008') return new ApiError('invalid_request', 'A date or time is out of range or not valid.');
  if (code.startsWith('22') || code.startsWith('23')) return new ApiError('invalid_request');
  if (code === '54000') return new ApiError('invalid_request', 'A value is too large to store.');
  return null;
}

/** The SQLSTATE of a database error, through the ORM's and the driver's wrapping; null for anything else. */
function sqlState(err: unknown): string | null {
  let e: unknown = err;
  for (let depth = 0; depth < 6 && e !== null && typeof e === 'object'; depth++) {
    const { code, sqlState: state } = e as { code?: unknown; sqlState?: unknown };
    for (const c of [state, code]) if (typeof c === 'string' && /^[0-9A-Z]{5}$/.test(c) && /^(2[23]|54)/.test(c)) return c;
    e = (e as { cause?: unknown }).cause ?? (e as { original?: unknown }).original ?? (e as { previous?: unknown }).previous;
  }
  return null;
}

export function toApiError(err: unknown): ApiError {
  if (isApiError(err)) return err;
  if (err instanceof UniqueConstraintViolationException) return new ApiError('conflict', 'That already exists.');
  const fe = err as FastifyError;
  if (fe && typeof fe.code === 'string' && fastifyCodes[fe.code]) return fastifyCodes[fe.code]!(fe);
  if (fe && fe instanceof SyntaxError) return new ApiError('invalid_json');
  // the database refusing a value is the caller's input, checked before any outage is assumed
  const state = sqlState(err);
  const input = state === null ? null : databaseInputError(state);
  if (input) return new ApiError(input.code, input.message, { cause: err });
  if (fe && typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new ApiError(fe.statusCode === 413 ? 'payload_too_large' : fe.statusCode === 415 ? 'unsupported_media_type' : 'invalid_request', fe.statusCode === 413 || fe.statusCode === 415 ? undefined : fe.message);
  }
  if (isDependencyDown(err)) return new ApiError('unavailable', undefined, { cause: err, headers: { 'retry-after': '1' } });
  return new ApiError('internal', undefined, { cause: err });
}
