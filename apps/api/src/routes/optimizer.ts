// Outcomes, routing settings and the step registry.
import type { FastifyInstance } from 'fastify';
import { outcomeRequest, routingSettingsWrite } from '@optimizer/schema';
import { principalOf, tenantAuth } from '../http/auth.ts';
import { parseWith } from '../http/validate.ts';
import type { Services } from '../services.ts';

export function registerOptimizerRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = tenantAuth(s.keys);

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

  app.get<{ Params: { id: string } }>('/v1/workflows/:id/steps', { onRequest }, async (request) => {
    const { accountId } = principalOf(request);
    await s.accounts.getWorkflow(accountId, request.params.id);
    return { data: s.optimizer.stepStates(request.params.id) };
  });

  app.get('/v1/workflows', { onRequest }, async (request) => {
    const { accountId } = principalOf(request);
    const agents = await s.accounts.listAgents(accountId);
    return {
      data: agents.map((a) => {
        const steps = s.optimizer.stepStates(a.id);
        const settled = steps.filter((x) => x.settled).length;
        return { id: a.id, name: a.name, stage: steps.length > 0 && settled === steps.length ? 'ready' : 'tuning', steps_expected: steps.length, steps_settled: settled, ready: steps.length > 0 && settled === steps.length };
      }),
    };
  });
}

