// What the meter writes: call records and their attempts (partitioned by month), the running totals and rollups the dashboard reads, learning lines and rows the database refused.
// Money is integer micro-dollars; timestamps are timestamptz. `entities.test.ts` checks each entity against the migrated table.
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const CallRecord = defineEntity({
  name: 'CallRecord',
  tableName: 'call_records',
  properties: {
    id: p.text().primary(),
    accountId: p.text(),
    workflowId: p.text(),
    /** In the key: the table is partitioned by month on it. */
    createdAt: p.datetime().primary(),
    requestedModel: p.text(),
    servedModel: p.text().nullable(),
    provider: p.text().nullable(),
    stream: p.boolean(),
    status: p.integer(),
    errorCode: p.text().nullable(),
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
    savingSource: p.text().nullable(),
    cacheHit: p.boolean(),
    reasons: p.json<string[]>(),
    latencyMs: p.double(),
    overheadMs: p.double(),
    vendorStatus: p.integer().nullable(),
    idempotencyKey: p.text().nullable(),
    detail: p.json<Record<string, unknown>>(),
  },
});
export type CallRecord = InferEntity<typeof CallRecord>;

export const ActivityEntry = defineEntity({
  name: 'ActivityEntry',
  tableName: 'activity',
  properties: {
    id: p.text().primary(),
    callId: p.text(),
    accountId: p.text(),
    workflowId: p.text(),
    /** In the key: the table is partitioned by month on it. */
    createdAt: p.datetime().primary(),
    attempt: p.integer(),
    provider: p.text(),
    model: p.text(),
    status: p.integer().nullable(),
    outcome: p.text(),
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
    id: p.text().primary(),
    accountId: p.text(),
    workflowId: p.text(),
    kind: p.text(),
    createdAt: p.datetime(),
    callId: p.text().nullable(),
    payload: p.json<Record<string, unknown>>(),
  },
});
export type WorkflowEvent = InferEntity<typeof WorkflowEvent>;

export const CallTotal = defineEntity({
  name: 'CallTotal',
  tableName: 'call_totals',
  properties: {
    accountId: p.text().primary(),
    workflowId: p.text().primary(),
    savingSource: p.text().primary().default(''),
    calls: p.bigint('number'),
    baselineMicros: p.bigint('number'),
    actualMicros: p.bigint('number'),
    savingMicros: p.bigint('number'),
  },
});
export type CallTotal = InferEntity<typeof CallTotal>;

export const CallRollup = defineEntity({
  name: 'CallRollup',
  tableName: 'call_rollups',
  properties: {
    accountId: p.text().primary(),
    grain: p.text().primary(),
    at: p.datetime().primary(),
    savingSource: p.text().primary().default(''),
    calls: p.bigint('number'),
    baselineMicros: p.bigint('number'),
    actualMicros: p.bigint('number'),
    savingMicros: p.bigint('number'),
  },
});
export type CallRollup = InferEntity<typeof CallRollup>;

export const CallLearning = defineEntity({
  name: 'CallLearning',
  tableName: 'call_learning',
  properties: {
    id: p.text().primary(),
    callCreatedAt: p.datetime(),
    accountId: p.text(),
    workflowId: p.text(),
    createdAt: p.datetime(),
    explorationMicros: p.bigint('number'),
    detail: p.json<Record<string, unknown>>().defaultRaw(`'{}'`),
    applied: p.boolean().default(false),
  },
});
export type CallLearning = InferEntity<typeof CallLearning>;

export const QuarantinedRow = defineEntity({
  name: 'QuarantinedRow',
  tableName: 'meter_quarantine',
  properties: {
    id: p.text().primary(),
    kind: p.text(),
    accountId: p.text().nullable(),
    rowJson: p.text(),
    sqlstate: p.text().nullable(),
    reason: p.text(),
    source: p.text(),
    status: p.text().default('quarantined'),
    createdAt: p.datetime().defaultRaw(`now()`),
    resolvedAt: p.datetime().nullable(),
  },
});
export type QuarantinedRow = InferEntity<typeof QuarantinedRow>;
