// Discovery mode (spec 4.6). Thin: input through the shared schema, then the domain.
import type { FastifyInstance } from 'fastify';
import { discoveryInput, workflowRef } from '@optimizer/schema';
import { discoveryProgress, discoveryReport, setDiscovery } from '../domain/discovery.ts';
import { controlAuth, principalOf } from '../http/auth.ts';
import { restInput } from '../http/rest-input.ts';
import type { Services } from '../services.ts';

export function registerDiscoveryRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = controlAuth(s);

  app.put('/v1/proxy-agents/:id/discovery', { onRequest }, async (request) => setDiscovery(s, principalOf(request), restInput(discoveryInput, request, 'body')));

  app.get('/v1/proxy-agents/:id/discovery', { onRequest }, async (request) => discoveryProgress(s, principalOf(request), restInput(workflowRef, request, 'params')));

  app.get('/v1/proxy-agents/:id/discovery/report', { onRequest }, async (request) => discoveryReport(s, principalOf(request), restInput(workflowRef, request, 'params')));
}
