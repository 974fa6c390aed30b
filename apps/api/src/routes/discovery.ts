// Discovery mode (spec 4.6). The proxy agent's id is its workflow's id.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { controlAuth, principalOf } from '../http/auth.ts';
import { parseWith } from '../http/validate.ts';
import type { Services } from '../services.ts';

const discoveryWrite = z.object({ enabled: z.boolean() }).strict();

type AgentParams = { Params: { id: string } };

export function registerDiscoveryRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = controlAuth(s);

  app.put<AgentParams>('/v1/proxy-agents/:id/discovery', { onRequest }, async (request) => {
    const { accountId } = principalOf(request);
    const body = parseWith(discoveryWrite, request.body);
    await s.accounts.getWorkflow(accountId, request.params.id);
    return s.discovery.setEnabled(accountId, request.params.id, body.enabled);
  });

  app.get<AgentParams>('/v1/proxy-agents/:id/discovery', { onRequest }, async (request) => {
    const { accountId } = principalOf(request);
    await s.accounts.getWorkflow(accountId, request.params.id);
    return s.discovery.view(accountId, request.params.id);
  });

  app.get<AgentParams>('/v1/proxy-agents/:id/discovery/report', { onRequest }, async (request) => {
    const { accountId } = principalOf(request);
    await s.accounts.getWorkflow(accountId, request.params.id);
    return s.discovery.report(accountId, request.params.id);
  });
}
