import type { FastifyInstance } from 'fastify';
import { createAgentRequest } from '@optimizer/schema';
import { controlAuth, principalOf } from '../http/auth.ts';
import { parseWith } from '../http/validate.ts';
import type { Services } from '../services.ts';

export function registerAgentRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = controlAuth(s);

  app.get('/v1/agents', { onRequest }, async (request) => {
    return { data: await s.accounts.listAgents(principalOf(request).accountId) };
  });

  app.post('/v1/agents', { onRequest }, async (request, reply) => {
    const body = parseWith(createAgentRequest, request.body);
    const created = await s.accounts.createAgent(principalOf(request).accountId, body.name);
    return reply.status(201).header('cache-control', 'no-store').send(created);
  });

  app.get<{ Params: { id: string } }>('/v1/agents/:id/keys', { onRequest }, async (request) => {
    return { data: await s.accounts.listKeys(principalOf(request).accountId, request.params.id) };
  });

  app.post<{ Params: { id: string } }>('/v1/agents/:id/keys', { onRequest }, async (request, reply) => {
    const created = await s.accounts.createKey(principalOf(request).accountId, request.params.id);
    return reply.status(201).header('cache-control', 'no-store').send(created);
  });

  app.delete<{ Params: { id: string; keyId: string } }>('/v1/agents/:id/keys/:keyId', { onRequest }, async (request, reply) => {
    await s.accounts.revokeKey(principalOf(request).accountId, request.params.id, request.params.keyId);
    return reply.status(204).send();
  });
}
