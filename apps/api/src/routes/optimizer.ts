// Outcomes, routing settings and the workflow list.
import type { FastifyInstance } from 'fastify';
import { outcomeRequest, routingSettingsWrite } from '@optimizer/schema';
import { controlAuth, principalOf } from '../http/auth.ts';
import { parseWith } from '../http/validate.ts';
import { workflowList } from '../reporting/workflows.ts';
import type { Services } from '../services.ts';

export function registerOptimizerRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = controlAuth(s);

  app.post('/v1/outcomes', { onRequest }, async (request, reply) => {
    const p = principalOf(request);
    const body = parseWith(outcomeRequest, request.body);
    return reply.status(202).send(await s.outcomes.report(p.accountId, p.workflowId, body));
  });

  app.get('/v1/settings/routing', { onRequest }, async (request) => s.routingSettings.get(principalOf(request).accountId));

  app.put('/v1/settings/routing', { onRequest }, async (request) => {
    const body = parseWith(routingSettingsWrite, request.body);
    return s.routingSettings.put(principalOf(request).accountId, body);
  });

  // The step registry itself (GET/PATCH /v1/workflows/:id/steps…) lives in routes/steps.ts.
  app.get('/v1/workflows', { onRequest }, async (request) => ({ data: await workflowList(s, principalOf(request).accountId) }));
}

