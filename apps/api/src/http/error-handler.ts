// Answers every failure on the REST door in the catalogue's envelope, logged at the catalogue's
// level, as the socket path does (failures/logged-failure.ts: the error, its level, the log line).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { loggedFailure } from '../failures/logged-failure.ts';
import { closeIfBodyPending } from './door-guard.ts';

/** Answers an error in the catalogue's envelope, logged at the catalogue's level. */
function answer(err: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const { error: e, level, fields } = loggedFailure(err);
  request.log[level](fields, e.message);
  // A request refused before its large body arrived: close rather than read it all to drop it.
  // (A chunked body, of unknown length, too; the client is given a moment to read the answer: http/door-guard.ts.)
  closeIfBodyPending(request, reply);
  void reply.status(e.status).headers(e.headers).send(e.toBody());
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err, request, reply) => answer(err, request, reply));
}

/**
 * Fastify's `frameworkErrors` option: the router's own refusals (a path that does not decode,
 * a path parameter too long), answered in the catalogue's envelope instead of Fastify's shape.
 */
export function frameworkErrors(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  answer(err, request, reply);
}
