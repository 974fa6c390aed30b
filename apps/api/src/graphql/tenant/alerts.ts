// The alert settings over GraphQL (spec 4.5, 6): email, the spend cap and its thresholds, the
// events that alert, and the webhook endpoints (a signing secret only in the create and
// rotate answers). Event names are strings: `spend_cap.threshold` is no GraphQL enum name.
import { alertSettingsPatch, createWebhookRequest, webhookRef, type AlertSettings } from '@optimizer/schema';
import type { WebhookEndpointView } from '../../alerts/webhook-endpoints.ts';
import { alertSettings, createWebhook, putAlertSettings, removeWebhook, rotateWebhook } from '../../domain/alerts.ts';
import { type Builder, capability, reader, settingsWire } from '../builder.ts';

export function registerAlerts(builder: Builder) {
  type Secret = WebhookEndpointView & { secret: string };

  const Endpoint = builder.objectRef<WebhookEndpointView>('WebhookEndpoint').implement({
    description: 'A webhook endpoint of the alerts; never its secret.',
    fields: (t) => ({
      id: t.exposeString('id'),
      url: t.exposeString('url'),
      enabled: t.exposeBoolean('enabled'),
      disabledReason: t.exposeString('disabled_reason', { nullable: true }),
      createdAt: t.exposeString('created_at'),
    }),
  });

  const EndpointWithSecret = builder.objectRef<Secret>('WebhookEndpointSecret').implement({
    description: 'A webhook endpoint with its signing secret: shown in this answer only.',
    fields: (t) => ({
      id: t.exposeString('id'),
      url: t.exposeString('url'),
      enabled: t.exposeBoolean('enabled'),
      disabledReason: t.exposeString('disabled_reason', { nullable: true }),
      createdAt: t.exposeString('created_at'),
      secret: t.exposeString('secret'),
    }),
  });

  const Alerts = builder.objectRef<AlertSettings & { webhooks: WebhookEndpointView[] }>('AlertSettings').implement({
    fields: (t) => ({
      spendCapUsd: t.exposeFloat('spend_cap_usd', { nullable: true, description: "The month's spend cap; null: no cap, so no spend alerts." }),
      spendThresholds: t.exposeIntList('spend_thresholds', { description: 'Percentages of the cap that each alert once a month.' }),
      walletLowUsd: t.exposeFloat('wallet_low_usd', { nullable: true, description: 'The wallet balance whose crossing downwards alerts wallet_low; null: the auto top-up threshold, if set.' }),
      emailTo: t.exposeStringList('email_to'),
      events: t.exposeStringList('events', { description: 'spend_cap.threshold, drift, failover, resettled, wallet_low, auto_topup_failed.' }),
      webhooks: t.field({ type: [Endpoint], resolve: (a) => a.webhooks }),
    }),
  });

  const AlertsInput = builder.inputType('AlertSettingsInput', {
    description: 'Merges into the alert settings, as PUT /v1/settings/alerts does: a field left out keeps its value, null returns it to its default.',
    fields: (t) => ({ spendCapUsd: t.float(), spendThresholds: t.intList(), walletLowUsd: t.float(), emailTo: t.stringList(), events: t.stringList() }),
  });

  const Removed = builder.objectRef<{ id: string; removed: true }>('RemovedWebhookEndpoint').implement({
    fields: (t) => ({ id: t.exposeString('id'), removed: t.exposeBoolean('removed') }),
  });

  builder.queryFields((t) => ({
    alertSettings: t.field({ type: Alerts, resolve: reader(alertSettings) }),
  }));

  builder.mutationFields((t) => ({
    setAlertSettings: t.field({ type: Alerts, args: { input: t.arg({ type: AlertsInput, required: true }) }, resolve: capability(alertSettingsPatch, putAlertSettings, settingsWire()) }),
    createAlertWebhook: t.field({ type: EndpointWithSecret, args: { url: t.arg.string({ required: true }) }, resolve: capability(createWebhookRequest, createWebhook) }),
    rotateAlertWebhook: t.field({ type: EndpointWithSecret, args: { id: t.arg.string({ required: true }) }, resolve: capability(webhookRef, rotateWebhook) }),
    removeAlertWebhook: t.field({ type: Removed, args: { id: t.arg.string({ required: true }) }, resolve: capability(webhookRef, removeWebhook) }),
  }));
}
