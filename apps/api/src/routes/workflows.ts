// A workflow's production events (spec 6). Thin: input through the shared schema, then the domain.
import type { FastifyInstance } from 'fastify';
import { eventsInput } from '@optimizer/schema';
import { workflowEventList } from '../domain/workflows.ts';
import { controlAuth, principalOf } from '../http/auth.ts';
import { restInput } from '../http/rest-input.ts';
import type { Services } from '../services.ts';

export function registerWorkflowRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = controlAuth(s);

  app.get('/v1/workflows/:id/events', { onRequest }, async (request) => ({ data: await workflowEventList(s, principalOf(request), restInput(eventsInput, request, 'query')) }));
}
