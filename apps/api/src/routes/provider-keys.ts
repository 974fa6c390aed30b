import type { FastifyInstance } from 'fastify';
import { providerName, putProviderKeyRequest } from '@optimizer/schema';
import { ApiError } from '../errors.ts';
import { controlAuth, principalOf } from '../http/auth.ts';
import { parseWith } from '../http/validate.ts';
import type { Services } from '../services.ts';

export function registerProviderKeyRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = controlAuth(s);

  app.get('/v1/settings/provider-keys', { onRequest }, async (request) => {
    return { data: s.providerKeys.list(principalOf(request).accountId) };
  });

  app.put<{ Params: { provider: string } }>('/v1/settings/provider-keys/:provider', { onRequest }, async (request) => {
    const provider = parseWith(providerName, request.params.provider);
    const body = parseWith(putProviderKeyRequest, request.body);
    await s.providerKeys.put(principalOf(request).accountId, provider, body.key);
    return { provider, key_set: true };
  });

  app.delete<{ Params: { provider: string } }>('/v1/settings/provider-keys/:provider', { onRequest }, async (request, reply) => {
    const provider = parseWith(providerName, request.params.provider);
    const removed = await s.providerKeys.remove(principalOf(request).accountId, provider);
    if (!removed) throw new ApiError('not_found', `No stored key for ${provider}.`);
    return reply.status(204).send();
  });
}
