// A workflow's reports and lockfile (spec 4.2, 9) and its stage (spec 3, design §9). Thin:
// the domain service checks the workflow is the tenant's and does the rest.
import type { FastifyInstance } from 'fastify';
import { reportQuery, stageRequest } from '@optimizer/schema';
import { controlAuth, principalOf } from '../http/auth.ts';
import { parseWith } from '../http/validate.ts';
import type { Services } from '../services.ts';

type WorkflowParams = { Params: { id: string } };

export function registerReportRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = controlAuth(s);
  const life = s.workflowLife;

  app.get<WorkflowParams>('/v1/workflows/:id/report', { onRequest }, async (request) => {
    const q = parseWith(reportQuery, request.query);
    return life.report(principalOf(request).accountId, request.params.id, q.version);
  });

  app.post<WorkflowParams>('/v1/workflows/:id/report/finalize', { onRequest }, async (request, reply) => {
    reply.code(201);
    return life.finalize(principalOf(request).accountId, request.params.id);
  });

  app.get<WorkflowParams>('/v1/workflows/:id/report/lock', { onRequest }, async (request) => life.lockfile(principalOf(request).accountId, request.params.id));

  app.get<WorkflowParams>('/v1/workflows/:id/stage', { onRequest }, async (request) => ({ id: request.params.id, stage: await life.stage(principalOf(request).accountId, request.params.id) }));

  app.post<WorkflowParams>('/v1/workflows/:id/stage', { onRequest }, async (request) => {
    const body = parseWith(stageRequest, request.body);
    return life.moveTo(principalOf(request).accountId, request.params.id, body.stage);
  });
}
