// Accounts, their workflows and keys, and the settings tenants and the platform keep (one JSON document per topic).
// Money is integer micro-dollars; timestamps are timestamptz. `entities.test.ts` checks each entity against the migrated table.
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const Account = defineEntity({
  name: 'Account',
  tableName: 'accounts',
  properties: {
    id: p.text().primary(),
    company: p.text(),
    email: p.text().unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
    /** The allowance on the platform's keys granted at signup (null: the configured default). */
    devAllowanceMicros: p.bigint('number').nullable(),
    confirmationRequired: p.boolean().default(false),
    confirmationTokenHash: p.text().nullable(),
    emailConfirmedAt: p.datetime().nullable(),
  },
});
export type Account = InferEntity<typeof Account>;

export const Workflow = defineEntity({
  name: 'Workflow',
  tableName: 'workflows',
  properties: {
    id: p.text().primary(),
    accountId: p.text().index(),
    name: p.text(),
    discoveryEnabled: p.boolean().default(false),
    /** `tuning` or `production` (design §9); `ready` is derived, never stored. */
    stage: p.text().default('tuning'),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Workflow = InferEntity<typeof Workflow>;

export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.text().primary(),
    accountId: p.text().index(),
    workflowId: p.text().index(),
    hash: p.text().unique(),
    hint: p.text(),
    createdAt: p.datetime().onCreate(() => new Date()),
    revokedAt: p.datetime().nullable(),
  },
});
export type ApiKey = InferEntity<typeof ApiKey>;

export const AdminKey = defineEntity({
  name: 'AdminKey',
  tableName: 'admin_keys',
  properties: {
    id: p.text().primary(),
    hash: p.text().unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type AdminKey = InferEntity<typeof AdminKey>;

export const ProviderKey = defineEntity({
  name: 'ProviderKey',
  tableName: 'provider_keys',
  uniques: [{ properties: ['accountId', 'provider'] }],
  properties: {
    id: p.text().primary(),
    accountId: p.text(),
    provider: p.text(),
    sealed: p.json<Record<string, unknown>>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
export type ProviderKey = InferEntity<typeof ProviderKey>;

export const TenantSetting = defineEntity({
  name: 'TenantSetting',
  tableName: 'tenant_settings',
  properties: {
    accountId: p.text().primary(),
    topic: p.text().primary(),
    settings: p.json<Record<string, unknown>>(),
    updatedAt: p.datetime().defaultRaw(`now()`),
  },
});
export type TenantSetting = InferEntity<typeof TenantSetting>;

export const RoutingSetting = defineEntity({
  name: 'RoutingSetting',
  tableName: 'routing_settings',
  properties: {
    accountId: p.text().primary(),
    settings: p.json<Record<string, unknown>>(),
    updatedAt: p.datetime().defaultRaw(`now()`),
  },
});
export type RoutingSetting = InferEntity<typeof RoutingSetting>;

export const PlatformSetting = defineEntity({
  name: 'PlatformSetting',
  tableName: 'platform_settings',
  properties: {
    topic: p.text().primary(),
    settings: p.json<Record<string, unknown>>(),
    updatedAt: p.datetime().defaultRaw(`now()`),
  },
});
export type PlatformSetting = InferEntity<typeof PlatformSetting>;
