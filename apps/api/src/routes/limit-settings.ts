// GET|PUT /v1/settings/limits: the tenant's rate limits within the platform's ceiling (design §10).
// Thin: input through the shared schema, then the domain.
import type { FastifyInstance } from 'fastify';
import { rateLimitSettingsPatch } from '@optimizer/schema';
import { putRateLimits, rateLimits } from '../domain/limits.ts';
import { controlAuth, principalOf } from '../http/auth.ts';
import { parseWith } from '../http/validate.ts';
import type { Services } from '../services.ts';

export function registerLimitSettingsRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = controlAuth(s);
  app.get('/v1/settings/limits', { onRequest }, async (request) => rateLimits(s, principalOf(request)));
  app.put('/v1/settings/limits', { onRequest }, async (request) => putRateLimits(s, principalOf(request), parseWith(rateLimitSettingsPatch, request.body)));
}
