// Agents and their keys (spec 4.3). Thin: input through the shared schema, then the domain.
import type { FastifyInstance } from 'fastify';
import { agentKeyRef, createAgentInput, workflowRef } from '@optimizer/schema';
import { createAgent, createAgentKey, listAgentKeys, listAgents, revokeAgentKey } from '../domain/agents.ts';
import { controlAuth, principalOf } from '../http/auth.ts';
import { restInput } from '../http/rest-input.ts';
import type { Services } from '../services.ts';

export function registerAgentRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = controlAuth(s);

  app.get('/v1/agents', { onRequest }, async (request) => ({ data: await listAgents(s, principalOf(request)) }));

  app.post('/v1/agents', { onRequest }, async (request, reply) => {
    const created = await createAgent(s, principalOf(request), restInput(createAgentInput, request, 'body'));
    return reply.status(201).header('cache-control', 'no-store').send(created);
  });

  app.get('/v1/agents/:id/keys', { onRequest }, async (request) => ({ data: await listAgentKeys(s, principalOf(request), restInput(workflowRef, request, 'params')) }));

  app.post('/v1/agents/:id/keys', { onRequest }, async (request, reply) => {
    const created = await createAgentKey(s, principalOf(request), restInput(workflowRef, request, 'params'));
    return reply.status(201).header('cache-control', 'no-store').send(created);
  });

  app.delete('/v1/agents/:id/keys/:key_id', { onRequest }, async (request, reply) => {
    await revokeAgentKey(s, principalOf(request), restInput(agentKeyRef, request, 'params'));
    return reply.status(204).send();
  });
}
