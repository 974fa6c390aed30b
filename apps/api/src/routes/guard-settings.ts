// GET|PUT /v1/settings/guard: the tenant's PII redaction and prompt-injection policy (spec 4.5).
// Thin: input through the shared schema, then the domain.
import type { FastifyInstance } from 'fastify';
import { guardSettingsPatch } from '@optimizer/schema';
import { guardSettings as readGuard, putGuardSettings } from '../domain/guard.ts';
import { controlAuth, principalOf } from '../http/auth.ts';
import { parseWith } from '../http/validate.ts';
import type { Services } from '../services.ts';

export function registerGuardSettingsRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = controlAuth(s);
  app.get('/v1/settings/guard', { onRequest }, async (request) => readGuard(s, principalOf(request)));
  app.put('/v1/settings/guard', { onRequest }, async (request) => putGuardSettings(s, principalOf(request), parseWith(guardSettingsPatch, request.body)));
}
