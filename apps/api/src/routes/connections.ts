// GET|PUT|DELETE /v1/connections[/:name]: a tenant's connections. The secret is never returned.
import type { FastifyInstance } from 'fastify';
import { putConnectionRequest, resourceName } from '@optimizer/schema';
import { controlAuth, principalOf } from '../http/auth.ts';
import { parseWith } from '../http/validate.ts';
import type { Services } from '../services.ts';

export function registerConnectionRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = controlAuth(s);
  type Named = { Params: { name: string } };

  app.get('/v1/connections', { onRequest }, async (request) => ({ data: await s.connections.list(principalOf(request).accountId) }));

  app.get<Named>('/v1/connections/:name', { onRequest }, async (request) => s.connections.get(principalOf(request).accountId, request.params.name));

  app.put<Named>('/v1/connections/:name', { onRequest }, async (request, reply) => {
    const name = parseWith(resourceName, request.params.name);
    const body = parseWith(putConnectionRequest, request.body);
    const { view, created } = await s.connections.put(principalOf(request).accountId, name, body);
    return reply.code(created ? 201 : 200).send(view);
  });

  app.delete<Named>('/v1/connections/:name', { onRequest }, async (request, reply) => {
    await s.connections.remove(principalOf(request).accountId, request.params.name);
    return reply.code(204).send();
  });
}
