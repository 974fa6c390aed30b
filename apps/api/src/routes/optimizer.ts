// Outcomes. Thin: input through the shared schema, then the domain.
import type { FastifyInstance } from 'fastify';
import { outcomeRequest } from '@optimizer/schema';
import { reportOutcome } from '../domain/outcomes.ts';
import { controlAuth, principalOf } from '../http/auth.ts';
import { restInput } from '../http/rest-input.ts';
import type { Services } from '../services.ts';

export function registerOptimizerRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = controlAuth(s);

  app.post('/v1/outcomes', { onRequest }, async (request, reply) => reply.status(202).send(await reportOutcome(s, principalOf(request), restInput(outcomeRequest, request, 'body'))));
}
