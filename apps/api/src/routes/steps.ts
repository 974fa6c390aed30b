// The step registry (spec 4.2) and the agent graph (spec 4.3). Thin: input through the
// shared schema, then the domain.
import type { FastifyInstance } from 'fastify';
import { stepCallsInput, stepPatchInput, workflowRef } from '@optimizer/schema';
import { agentGraph, listStepCalls, listSteps, patchStep } from '../domain/steps.ts';
import { controlAuth, principalOf } from '../http/auth.ts';
import { restInput } from '../http/rest-input.ts';
import type { Services } from '../services.ts';

export function registerStepRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = controlAuth(s);

  app.get('/v1/workflows/:id/steps', { onRequest }, async (request) => ({ data: await listSteps(s, principalOf(request), restInput(workflowRef, request, 'params')) }));

  app.patch('/v1/workflows/:id/steps/:fingerprint', { onRequest }, async (request) => patchStep(s, principalOf(request), restInput(stepPatchInput, request, 'body')));

  app.get('/v1/workflows/:id/steps/:fingerprint/calls', { onRequest }, async (request) => ({
    data: await listStepCalls(s, principalOf(request), restInput(stepCallsInput, request, 'query')),
  }));

  app.get('/v1/agents/:id/graph', { onRequest }, async (request) => agentGraph(s, principalOf(request), restInput(workflowRef, request, 'params')));
}
