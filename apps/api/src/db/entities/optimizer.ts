// What routing learns from: the model catalog, custom providers, steps, evidence, outcomes, discovery credit and the finalized workflow reports.
// Money is integer micro-dollars; timestamps are timestamptz. `entities.test.ts` checks each entity against the migrated table.
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const CatalogModel = defineEntity({
  name: 'CatalogModel',
  tableName: 'catalog_models',
  properties: {
    model: p.text().primary(),
    provider: p.text(),
    profile: p.json<Record<string, unknown>>(),
    disabled: p.boolean().default(false),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
export type CatalogModel = InferEntity<typeof CatalogModel>;

export const CustomProvider = defineEntity({
  name: 'CustomProvider',
  tableName: 'custom_providers',
  properties: {
    name: p.text().primary(),
    baseUrl: p.text(),
    wire: p.text(),
    sealedKey: p.json<Record<string, unknown>>().nullable(),
    enabled: p.boolean().default(true),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
export type CustomProvider = InferEntity<typeof CustomProvider>;

export const Step = defineEntity({
  name: 'Step',
  tableName: 'steps',
  properties: {
    workflowId: p.text().primary(),
    fingerprint: p.text().primary(),
    accountId: p.text(),
    label: p.text(),
    firstSeen: p.datetime(),
    lastSeen: p.datetime(),
    calls: p.integer().default(0),
    excluded: p.boolean().default(false),
    lastSeenPhase: p.text().nullable(),
    phases: p.json<Record<string, unknown>>().defaultRaw(`'{}'`),
    release: p.text().default(''),
  },
});
export type Step = InferEntity<typeof Step>;

export const EvidenceSample = defineEntity({
  name: 'EvidenceSample',
  tableName: 'evidence',
  properties: {
    id: p.text().primary(),
    accountId: p.text(),
    workflowId: p.text(),
    fingerprint: p.text(),
    release: p.text(),
    kind: p.text(),
    createdAt: p.datetime(),
    sample: p.json<Record<string, unknown>>(),
  },
});
export type EvidenceSample = InferEntity<typeof EvidenceSample>;

export const CallOutcome = defineEntity({
  name: 'CallOutcome',
  tableName: 'outcomes',
  properties: {
    id: p.text().primary(),
    accountId: p.text(),
    workflowId: p.text(),
    runId: p.text(),
    stepId: p.text(),
    createdAt: p.datetime(),
    signals: p.json<Record<string, unknown>>(),
    score: p.double(),
    callIds: p.json<Record<string, unknown>>(),
  },
});
export type CallOutcome = InferEntity<typeof CallOutcome>;

export const DiscoveryCredit = defineEntity({
  name: 'DiscoveryCredit',
  tableName: 'discovery',
  properties: {
    workflowId: p.text().primary(),
    accountId: p.text(),
    enabled: p.boolean().default(false),
    creditMicros: p.bigint('number').default(5000000),
    usedMicros: p.bigint('number').default(0),
    updatedAt: p.datetime().defaultRaw(`now()`),
  },
});
export type DiscoveryCredit = InferEntity<typeof DiscoveryCredit>;

export const WorkflowReport = defineEntity({
  name: 'WorkflowReport',
  tableName: 'workflow_reports',
  properties: {
    workflowId: p.text().primary(),
    accountId: p.text(),
    version: p.integer().primary(),
    finalizedAt: p.datetime().defaultRaw(`now()`),
    body: p.json<Record<string, unknown>>(),
  },
});
export type WorkflowReport = InferEntity<typeof WorkflowReport>;
