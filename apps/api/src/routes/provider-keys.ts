// Stored provider keys (spec 4.5): never returned. Thin: input through the shared schema, then the domain.
import type { FastifyInstance } from 'fastify';
import { providerRef, putProviderKeyInput } from '@optimizer/schema';
import { listProviderKeys, putProviderKey, removeProviderKey } from '../domain/settings.ts';
import { controlAuth, principalOf } from '../http/auth.ts';
import { restInput } from '../http/rest-input.ts';
import type { Services } from '../services.ts';

export function registerProviderKeyRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = controlAuth(s);

  app.get('/v1/settings/provider-keys', { onRequest }, async (request) => ({ data: listProviderKeys(s, principalOf(request)) }));

  app.put('/v1/settings/provider-keys/:provider', { onRequest }, async (request) => putProviderKey(s, principalOf(request), restInput(putProviderKeyInput, request, 'body')));

  app.delete('/v1/settings/provider-keys/:provider', { onRequest }, async (request, reply) => {
    await removeProviderKey(s, principalOf(request), restInput(providerRef, request, 'params'));
    return reply.status(204).send();
  });
}
