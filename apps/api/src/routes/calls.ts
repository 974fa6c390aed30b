import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { callsQuery } from '@optimizer/schema';
import { controlAuth, principalOf } from '../http/auth.ts';
import { parseWith } from '../http/validate.ts';
import type { Services } from '../services.ts';

const activityQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).default(50) }).strict();

export function registerCallRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = controlAuth(s);

  app.get('/v1/calls', { onRequest }, async (request) => {
    const q = parseWith(callsQuery, request.query);
    return { data: await s.callViews.calls(principalOf(request).accountId, q) };
  });

  app.get('/v1/activity', { onRequest }, async (request) => {
    const q = parseWith(activityQuery, request.query);
    return { data: await s.callViews.activity(principalOf(request).accountId, q.limit) };
  });

  app.get('/v1/dashboard/savings', { onRequest }, async (request) => {
    return s.callViews.savings(principalOf(request).accountId);
  });
}
