// Calls, activity and savings (spec 4.1). Thin: input through the shared schema, then the domain.
import type { FastifyInstance } from 'fastify';
import { activityQuery, callRef, callsQuery, savingsSeriesQuery } from '@optimizer/schema';
import { getCall, listActivity, listCalls, savings, savingsSeries } from '../domain/calls.ts';
import { controlAuth, principalOf } from '../http/auth.ts';
import { restInput } from '../http/rest-input.ts';
import type { Services } from '../services.ts';

export function registerCallRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = controlAuth(s);

  app.get('/v1/calls', { onRequest }, async (request) => ({ data: await listCalls(s, principalOf(request), restInput(callsQuery, request, 'query')) }));

  app.get('/v1/calls/:id', { onRequest }, async (request) => getCall(s, principalOf(request), restInput(callRef, request, 'params')));

  app.get('/v1/activity', { onRequest }, async (request) => ({ data: await listActivity(s, principalOf(request), restInput(activityQuery, request, 'query')) }));

  app.get('/v1/dashboard/savings', { onRequest }, async (request) => savings(s, principalOf(request)));

  app.get('/v1/dashboard/savings/series', { onRequest }, async (request) => savingsSeries(s, principalOf(request), restInput(savingsSeriesQuery, request, 'query')));
}
