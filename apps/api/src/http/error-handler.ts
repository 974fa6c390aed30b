// Turns every failure into the REST error envelope with the catalogue's status.
import type { FastifyError, FastifyInstance } from 'fastify';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { ApiError, isApiError } from '../errors.ts';
import { isDependencyDown } from './dependency-down.ts';
import { closeIfBodyPending } from './door-guard.ts';

const fastifyCodes: Record<string, () => ApiError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => new ApiError('payload_too_large'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => new ApiError('unsupported_media_type'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => new ApiError('invalid_json', 'The request body is empty; send a JSON object.'),
  FST_ERR_CTP_INVALID_JSON_BODY: () => new ApiError('invalid_json'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => new ApiError('invalid_request', 'Content-Length does not match the body.'),
};

export function toApiError(err: unknown): ApiError {
  if (isApiError(err)) return err;
  if (err instanceof UniqueConstraintViolationException) return new ApiError('conflict', 'That already exists.');
  const fe = err as FastifyError;
  if (fe && typeof fe.code === 'string' && fastifyCodes[fe.code]) return fastifyCodes[fe.code]!();
  if (fe && fe instanceof SyntaxError) return new ApiError('invalid_json');
  if (fe && typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new ApiError('invalid_request', fe.message);
  }
  if (isDependencyDown(err)) return new ApiError('unavailable', undefined, { cause: err, headers: { 'retry-after': '1' } });
  return new ApiError('internal', undefined, { cause: err });
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err, request, reply) => {
    const e = toApiError(err);
    const level = e.entry.log;
    request.log[level]({ code: e.code, status: e.status, err: e.code === 'internal' ? err : undefined }, e.message);
    // A request refused before its large body arrived: close rather than read it all to drop it.
    // (A chunked body, of unknown length, too; the client is given a moment to read the answer: http/door-guard.ts.)
  closeIfBodyPending(request, reply);
    void reply.status(e.status).headers(e.headers).send(e.toBody());
  });
}
