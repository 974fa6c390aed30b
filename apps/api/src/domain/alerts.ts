// The alert settings (spec 4.5, 6): email, spend cap and its thresholds, the events that alert,
// and the webhook endpoints (the signing secret is in the create and rotate answers only).
// The rules of a write live here: email needs an SMTP server, and a webhook URL goes through
// the tenant-directed client's write check (under `public-only`, a URL that can only be
// private is refused; the socket is checked again at delivery).
import type { z } from 'zod';
import type { AlertSettings, CreateWebhookRequest, SettingsPatch, webhookRef } from '@optimizer/schema';
import { ApiError } from '../errors.ts';
import type { Services } from '../services.ts';
import type { Tenant } from './tenant.ts';

type Ref = z.output<typeof webhookRef>;

/** The settings with the tenant's webhook endpoints (never their secrets). */
export async function alertSettings(s: Services, t: Tenant) {
  return { ...s.alertSettings.get(t.accountId), webhooks: await s.webhookEndpoints.list(t.accountId) };
}

/** Merges the write into the stored settings (a field left out keeps its value; null: its default), then checks the result. */
export async function putAlertSettings(s: Services, t: Tenant, q: SettingsPatch<AlertSettings>) {
  const next = s.alertSettings.preview(t.accountId, q);
  if (q.email_to && q.email_to.length > 0 && !s.config.SMTP_URL) throw new ApiError('validation_failed', 'email_to: this gateway has no SMTP server configured (SMTP_URL).', { param: 'email_to' });
  await s.alertSettings.store(t.accountId, next);
  return alertSettings(s, t);
}

/** A new webhook endpoint; its secret is in this answer only. The name is not looked up now: the socket is checked at delivery. */
export async function createWebhook(s: Services, t: Tenant, q: CreateWebhookRequest) {
  await s.webhookOutbound.check(q.url, 'url', { resolve: false });
  return s.webhookEndpoints.create(t.accountId, q.url);
}

/** A new secret for the endpoint (shown once; the old one signs beside it for a day); 404 for another tenant's. */
export function rotateWebhook(s: Services, t: Tenant, q: Ref) {
  return s.webhookEndpoints.rotate(t.accountId, q.id);
}

export async function removeWebhook(s: Services, t: Tenant, q: Ref) {
  await s.webhookEndpoints.remove(t.accountId, q.id);
  return { id: q.id, removed: true as const };
}
