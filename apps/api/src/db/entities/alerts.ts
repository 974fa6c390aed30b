// What leaves the gateway for the tenant: alert deliveries and their claims, webhook endpoints, and recorded calls (capture).
// Money is integer micro-dollars; timestamps are timestamptz. `entities.test.ts` checks each entity against the migrated table.
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const AlertOutbox = defineEntity({
  name: 'AlertOutbox',
  tableName: 'alert_outbox',
  properties: {
    id: p.text().primary(),
    accountId: p.text(),
    channel: p.text(),
    target: p.text(),
    eventType: p.text(),
    body: p.text(),
    status: p.text().default('pending'),
    attempts: p.integer().default(0),
    nextAttemptAt: p.datetime().defaultRaw(`now()`),
    claimedUntil: p.datetime().nullable(),
    lastStatus: p.integer().nullable(),
    lastError: p.text().nullable(),
    createdAt: p.datetime().defaultRaw(`now()`),
    deliveredAt: p.datetime().nullable(),
  },
});
export type AlertOutbox = InferEntity<typeof AlertOutbox>;

export const AlertClaim = defineEntity({
  name: 'AlertClaim',
  tableName: 'alert_claims',
  properties: {
    key: p.text().primary(),
    createdAt: p.datetime().defaultRaw(`now()`),
  },
});
export type AlertClaim = InferEntity<typeof AlertClaim>;

export const WebhookEndpoint = defineEntity({
  name: 'WebhookEndpoint',
  tableName: 'webhook_endpoints',
  properties: {
    id: p.text().primary(),
    accountId: p.text(),
    url: p.text(),
    secret: p.json<Record<string, unknown>>(),
    previousSecret: p.json<Record<string, unknown>>().nullable(),
    previousUntil: p.datetime().nullable(),
    enabled: p.boolean().default(true),
    disabledReason: p.text().nullable(),
    createdAt: p.datetime().defaultRaw(`now()`),
  },
});
export type WebhookEndpoint = InferEntity<typeof WebhookEndpoint>;

export const Recording = defineEntity({
  name: 'Recording',
  tableName: 'recordings',
  properties: {
    id: p.text().primary(),
    accountId: p.text(),
    workflowId: p.text(),
    createdAt: p.datetime(),
    fingerprint: p.text().nullable(),
    step: p.text().nullable(),
    content: p.text(),
    redacted: p.boolean().default(false),
    requestedModel: p.text(),
    servedModel: p.text().nullable(),
    status: p.integer(),
    errorCode: p.text().nullable(),
    promptTokens: p.integer().default(0),
    completionTokens: p.integer().default(0),
    meta: p.json<Record<string, unknown>>(),
    request: p.json<Record<string, unknown>>().nullable(),
    response: p.json<Record<string, unknown>>().nullable(),
  },
});
export type Recording = InferEntity<typeof Recording>;
