// The domain's tables. Money is integer micro-dollars; timestamps are timestamptz.
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const Account = defineEntity({
  name: 'Account',
  tableName: 'accounts',
  properties: {
    id: p.string().primary(),
    company: p.string(),
    email: p.string().unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Account = InferEntity<typeof Account>;

export const Workflow = defineEntity({
  name: 'Workflow',
  tableName: 'workflows',
  properties: {
    id: p.string().primary(),
    accountId: p.string().index(),
    name: p.string(),
    discoveryEnabled: p.boolean().default(false),
    /** `tuning` or `production` (design §9); `ready` is derived, never stored. */
    stage: p.string().default('tuning'),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Workflow = InferEntity<typeof Workflow>;

export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.string().primary(),
    accountId: p.string().index(),
    workflowId: p.string().index(),
    hash: p.string().unique(),
    hint: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
    revokedAt: p.datetime().nullable(),
  },
});
export type ApiKey = InferEntity<typeof ApiKey>;

export const AdminKey = defineEntity({
  name: 'AdminKey',
  tableName: 'admin_keys',
  properties: {
    id: p.string().primary(),
    hash: p.string().unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type AdminKey = InferEntity<typeof AdminKey>;

export const ProviderKey = defineEntity({
  name: 'ProviderKey',
  tableName: 'provider_keys',
  uniques: [{ properties: ['accountId', 'provider'] }],
  properties: {
    id: p.string().primary(),
    accountId: p.string(),
    provider: p.string(),
    sealed: p.json<Record<string, unknown>>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
export type ProviderKey = InferEntity<typeof ProviderKey>;

export const CatalogModel = defineEntity({
  name: 'CatalogModel',
  tableName: 'catalog_models',
  properties: {
    model: p.string().primary(),
    provider: p.string(),
    profile: p.json<Record<string, unknown>>(),
    disabled: p.boolean().default(false),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
export type CatalogModel = InferEntity<typeof CatalogModel>;

export const CallRecord = defineEntity({
  name: 'CallRecord',
  tableName: 'call_records',
  properties: {
    id: p.string().primary(),
    accountId: p.string(),
    workflowId: p.string(),
    createdAt: p.datetime(),
    requestedModel: p.string(),
    servedModel: p.string().nullable(),
    provider: p.string().nullable(),
    stream: p.boolean(),
    status: p.integer(),
    errorCode: p.string().nullable(),
    promptTokens: p.integer(),
    completionTokens: p.integer(),
    cachedTokens: p.integer(),
    reasoningTokens: p.integer(),
    usageEstimated: p.boolean(),
    baselineMicros: p.bigint('number'),
    servedMicros: p.bigint('number'),
    actualMicros: p.bigint('number'),
    explorationMicros: p.bigint('number'),
    savingMicros: p.bigint('number'),
    savingSource: p.string().nullable(),
    cacheHit: p.boolean(),
    reasons: p.json<string[]>(),
    latencyMs: p.double(),
    overheadMs: p.double(),
    vendorStatus: p.integer().nullable(),
    idempotencyKey: p.string().nullable(),
    detail: p.json<Record<string, unknown>>(),
  },
});
export type CallRecord = InferEntity<typeof CallRecord>;

export const ActivityEntry = defineEntity({
  name: 'ActivityEntry',
  tableName: 'activity',
  properties: {
    id: p.string().primary(),
    callId: p.string(),
    accountId: p.string(),
    workflowId: p.string(),
    createdAt: p.datetime(),
    attempt: p.integer(),
    provider: p.string(),
    model: p.string(),
    status: p.integer().nullable(),
    outcome: p.string(),
    latencyMs: p.double(),
    promptTokens: p.integer(),
    completionTokens: p.integer(),
    costMicros: p.bigint('number'),
  },
});
export type ActivityEntry = InferEntity<typeof ActivityEntry>;

export const WorkflowEvent = defineEntity({
  name: 'WorkflowEvent',
  tableName: 'workflow_events',
  properties: {
    id: p.string().primary(),
    accountId: p.string(),
    workflowId: p.string(),
    kind: p.string(),
    createdAt: p.datetime(),
    callId: p.string().nullable(),
    payload: p.json<Record<string, unknown>>(),
  },
});
export type WorkflowEvent = InferEntity<typeof WorkflowEvent>;

export const CustomProvider = defineEntity({
  name: 'CustomProvider',
  tableName: 'custom_providers',
  properties: {
    name: p.string().primary(),
    baseUrl: p.string(),
    wire: p.string(),
    sealedKey: p.json<Record<string, unknown>>().nullable(),
    enabled: p.boolean().default(true),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
export type CustomProvider = InferEntity<typeof CustomProvider>;

/** A semantic-cache entry: a question, its embedding and the answer served for it (per tenant, step and scope). */
export const SemanticCacheEntry = defineEntity({
  name: 'SemanticCacheEntry',
  tableName: 'semantic_cache_entries',
  properties: {
    id: p.string().primary(),
    accountId: p.string(),
    step: p.string(),
    scope: p.string(),
    question: p.text(),
    embedder: p.string(),
    vector: p.blob(),
    answer: p.json<Record<string, unknown>>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime(),
  },
});
export type SemanticCacheEntry = InferEntity<typeof SemanticCacheEntry>;

export const entities = [CustomProvider, WorkflowEvent, Account, Workflow, ApiKey, AdminKey, ProviderKey, CatalogModel, CallRecord, ActivityEntry, SemanticCacheEntry];
