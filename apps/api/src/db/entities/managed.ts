// Connections and the managed agents that act through them: agents, runs, their events and actions, schedules and the monthly run counts.
// Money is integer micro-dollars; timestamps are timestamptz. `entities.test.ts` checks each entity against the migrated table.
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const TenantConnection = defineEntity({
  name: 'TenantConnection',
  tableName: 'connections',
  properties: {
    id: p.text().primary(),
    accountId: p.text(),
    name: p.text(),
    baseUrl: p.text(),
    secret: p.json<Record<string, unknown>>().nullable(),
    createdAt: p.datetime().defaultRaw(`now()`),
    updatedAt: p.datetime().defaultRaw(`now()`),
  },
});
export type TenantConnection = InferEntity<typeof TenantConnection>;

export const ManagedAgent = defineEntity({
  name: 'ManagedAgent',
  tableName: 'managed_agents',
  properties: {
    id: p.text().primary(),
    accountId: p.text(),
    workflowId: p.text(),
    keyId: p.text(),
    name: p.text(),
    kind: p.text(),
    config: p.json<Record<string, unknown>>(),
    createdAt: p.datetime().defaultRaw(`now()`),
  },
});
export type ManagedAgent = InferEntity<typeof ManagedAgent>;

export const ManagedRun = defineEntity({
  name: 'ManagedRun',
  tableName: 'managed_runs',
  properties: {
    id: p.text().primary(),
    accountId: p.text(),
    agentId: p.text().nullable(),
    workflowId: p.text(),
    keyId: p.text(),
    kind: p.text(),
    config: p.json<Record<string, unknown>>(),
    input: p.text(),
    status: p.text(),
    state: p.json<Record<string, unknown>>(),
    error: p.text().nullable(),
    leaseUntil: p.datetime().nullable(),
    createdAt: p.datetime().defaultRaw(`now()`),
    updatedAt: p.datetime().defaultRaw(`now()`),
  },
});
export type ManagedRun = InferEntity<typeof ManagedRun>;

export const ManagedRunEvent = defineEntity({
  name: 'ManagedRunEvent',
  tableName: 'managed_run_events',
  properties: {
    runId: p.text().primary(),
    seq: p.integer().primary(),
    type: p.text(),
    data: p.json<Record<string, unknown>>(),
    createdAt: p.datetime().defaultRaw(`now()`),
  },
});
export type ManagedRunEvent = InferEntity<typeof ManagedRunEvent>;

export const ManagedAction = defineEntity({
  name: 'ManagedAction',
  tableName: 'managed_actions',
  properties: {
    id: p.text().primary(),
    runId: p.text(),
    accountId: p.text(),
    connection: p.text(),
    method: p.text(),
    path: p.text(),
    body: p.text().nullable(),
    status: p.text().default('proposed'),
    responseStatus: p.integer().nullable(),
    responseBody: p.text().nullable(),
    error: p.text().nullable(),
    createdAt: p.datetime().defaultRaw(`now()`),
    executedAt: p.datetime().nullable(),
    ord: p.bigint('number').defaultRaw(`nextval('managed_actions_ord_seq'::regclass)`),
  },
});
export type ManagedAction = InferEntity<typeof ManagedAction>;

export const ManagedRunCount = defineEntity({
  name: 'ManagedRunCount',
  tableName: 'managed_run_counts',
  properties: {
    accountId: p.text().primary(),
    month: p.text().primary(),
    used: p.integer(),
  },
});
export type ManagedRunCount = InferEntity<typeof ManagedRunCount>;

export const ManagedSchedule = defineEntity({
  name: 'ManagedSchedule',
  tableName: 'managed_schedules',
  properties: {
    agentId: p.text().primary(),
    accountId: p.text(),
    keyId: p.text(),
    cron: p.text(),
    input: p.text(),
    nextAt: p.datetime(),
    lastFiredAt: p.datetime().nullable(),
    lastRunId: p.text().nullable(),
    createdAt: p.datetime().defaultRaw(`now()`),
    /** How late a missed tick may still be fired once (0: never). */
    catchUpS: p.integer().default(3600),
    /** The tick the last run was for. */
    lastTickAt: p.datetime().nullable(),
  },
});
export type ManagedSchedule = InferEntity<typeof ManagedSchedule>;
