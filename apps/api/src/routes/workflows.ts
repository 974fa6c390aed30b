import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { controlAuth, principalOf } from '../http/auth.ts';
import { parseWith } from '../http/validate.ts';
import { workflowEvents } from '../reporting/events.ts';
import type { Services } from '../services.ts';

const eventsQuery = z.object({ days: z.coerce.number().int().min(1).max(90).default(7) }).strict();

export function registerWorkflowRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = controlAuth(s);

  app.get<{ Params: { id: string } }>('/v1/workflows/:id/events', { onRequest }, async (request) => {
    const { accountId } = principalOf(request);
    const q = parseWith(eventsQuery, request.query);
    await s.accounts.getWorkflow(accountId, request.params.id);
    return { data: await workflowEvents(s.db, s.meter, accountId, request.params.id, q.days) };
  });
}
