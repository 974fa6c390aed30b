// GET|PUT /v1/settings/alerts (email, spend cap and thresholds, events) and the webhook
// endpoints under it: create (the signing secret is in that answer only), rotate, delete.
// Thin: input through the shared schema, then the domain (domain/alerts.ts), which holds the rules.
import type { FastifyInstance } from 'fastify';
import { alertSettingsPatch, createWebhookRequest, webhookRef } from '@optimizer/schema';
import { alertSettings as readAlerts, createWebhook, putAlertSettings, removeWebhook, rotateWebhook } from '../domain/alerts.ts';
import { controlAuth, principalOf } from '../http/auth.ts';
import { restInput } from '../http/rest-input.ts';
import { parseWith } from '../http/validate.ts';
import type { Services } from '../services.ts';

export function registerAlertSettingsRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = controlAuth(s);

  app.get('/v1/settings/alerts', { onRequest }, async (request) => readAlerts(s, principalOf(request)));

  app.put('/v1/settings/alerts', { onRequest }, async (request) => putAlertSettings(s, principalOf(request), parseWith(alertSettingsPatch, request.body)));

  app.post('/v1/settings/alerts/webhooks', { onRequest }, async (request, reply) => {
    return reply.code(201).send(await createWebhook(s, principalOf(request), parseWith(createWebhookRequest, request.body)));
  });

  app.post('/v1/settings/alerts/webhooks/:id/rotate', { onRequest }, async (request) => rotateWebhook(s, principalOf(request), restInput(webhookRef, request, 'params')));

  app.delete('/v1/settings/alerts/webhooks/:id', { onRequest }, async (request, reply) => {
    await removeWebhook(s, principalOf(request), restInput(webhookRef, request, 'params'));
    return reply.code(204).send();
  });
}
