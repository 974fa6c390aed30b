// Outcomes and routing settings. Thin: input through the shared schema, then the domain.
import type { FastifyInstance } from 'fastify';
import { outcomeRequest, routingSettingsPatch } from '@optimizer/schema';
import { reportOutcome } from '../domain/outcomes.ts';
import { putRoutingSettings, routingSettings } from '../domain/settings.ts';
import { controlAuth, principalOf } from '../http/auth.ts';
import { restInput } from '../http/rest-input.ts';
import type { Services } from '../services.ts';

export function registerOptimizerRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = controlAuth(s);

  app.post('/v1/outcomes', { onRequest }, async (request, reply) => reply.status(202).send(await reportOutcome(s, principalOf(request), restInput(outcomeRequest, request, 'body'))));

  app.get('/v1/settings/routing', { onRequest }, async (request) => routingSettings(s, principalOf(request)));

  app.put('/v1/settings/routing', { onRequest }, async (request) => putRoutingSettings(s, principalOf(request), restInput(routingSettingsPatch, request, 'body')));
}
