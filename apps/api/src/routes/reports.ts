// A workflow's reports and lockfile (spec 4.2, 9) and its stage (spec 3, design §9). Thin:
// input through the shared schema, then the domain, which checks the workflow is the tenant's.
import type { FastifyInstance } from 'fastify';
import { reportInput, stageInput, workflowRef } from '@optimizer/schema';
import { finalizeReport, moveWorkflow, workflowLockfile, workflowReport, workflowStage } from '../domain/workflows.ts';
import { controlAuth, principalOf } from '../http/auth.ts';
import { restInput } from '../http/rest-input.ts';
import type { Services } from '../services.ts';

export function registerReportRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = controlAuth(s);

  app.get('/v1/workflows/:id/report', { onRequest }, async (request) => workflowReport(s, principalOf(request), restInput(reportInput, request, 'query')));

  app.post('/v1/workflows/:id/report/finalize', { onRequest }, async (request, reply) => {
    const report = await finalizeReport(s, principalOf(request), restInput(workflowRef, request, 'params'));
    return reply.status(201).send(report);
  });

  app.get('/v1/workflows/:id/report/lock', { onRequest }, async (request) => workflowLockfile(s, principalOf(request), restInput(workflowRef, request, 'params')));

  app.get('/v1/workflows/:id/stage', { onRequest }, async (request) => workflowStage(s, principalOf(request), restInput(workflowRef, request, 'params')));

  app.post('/v1/workflows/:id/stage', { onRequest }, async (request) => moveWorkflow(s, principalOf(request), restInput(stageInput, request, 'body')));
}
