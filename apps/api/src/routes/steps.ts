// The step registry (spec 4.2) and the agent graph (spec 4.3).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ApiError } from '../errors.ts';
import { controlAuth, principalOf } from '../http/auth.ts';
import { parseWith } from '../http/validate.ts';
import { buildGraph, graphCalls } from '../reporting/graph.ts';
import { stepCalls } from '../reporting/step-calls.ts';
import type { Services } from '../services.ts';

const stepPatch = z
  .object({
    excluded: z.boolean().optional(),
    /** true gives a step back the semantic cache it lost (its checks start over); false takes it away. */
    semantic_cache: z.boolean().optional(),
  })
  .strict()
  .refine((b) => b.excluded !== undefined || b.semantic_cache !== undefined, { message: 'give excluded or semantic_cache' });
const stepCallsQuery = z.object({ model: z.string().trim().min(1).max(256).optional() }).strict();

type StepParams = { Params: { id: string; fingerprint: string } };

export function registerStepRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = controlAuth(s);

  app.get<{ Params: { id: string } }>('/v1/workflows/:id/steps', { onRequest }, async (request) => {
    const { accountId } = principalOf(request);
    await s.accounts.getWorkflow(accountId, request.params.id);
    return { data: await s.steps.list(accountId, request.params.id) };
  });

  app.patch<StepParams>('/v1/workflows/:id/steps/:fingerprint', { onRequest }, async (request) => {
    const { accountId } = principalOf(request);
    const body = parseWith(stepPatch, request.body);
    const { id, fingerprint } = request.params;
    await s.accounts.getWorkflow(accountId, id);
    if (!(await s.steps.get(accountId, id, fingerprint))) throw new ApiError('not_found', `No step ${fingerprint} on agent ${id}.`, { param: 'fingerprint' });
    if (body.semantic_cache !== undefined) await s.semanticCache.setStep(accountId, fingerprint, body.semantic_cache);
    if (body.excluded !== undefined) return s.steps.setExcluded(accountId, id, fingerprint, body.excluded);
    return (await s.steps.get(accountId, id, fingerprint))!;
  });

  app.get<StepParams>('/v1/workflows/:id/steps/:fingerprint/calls', { onRequest }, async (request) => {
    const { accountId } = principalOf(request);
    const q = parseWith(stepCallsQuery, request.query);
    const { id, fingerprint } = request.params;
    await s.accounts.getWorkflow(accountId, id);
    if (!(await s.steps.get(accountId, id, fingerprint))) throw new ApiError('not_found', `No step ${fingerprint} on agent ${id}.`, { param: 'fingerprint' });
    return { data: await stepCalls(s.db, s.meter, { accountId, workflowId: id, fingerprint, model: q.model }) };
  });

  app.get<{ Params: { id: string } }>('/v1/agents/:id/graph', { onRequest }, async (request) => {
    const { accountId } = principalOf(request);
    const { id } = request.params;
    await s.accounts.getWorkflow(accountId, id);
    const [steps, calls] = await Promise.all([s.steps.list(accountId, id), graphCalls(s.db, s.meter, accountId, id)]);
    return buildGraph(id, steps, calls);
  });
}
