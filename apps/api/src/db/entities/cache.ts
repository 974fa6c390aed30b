// The semantic cache: entries (question, vector, answer) and each step's verification record.
// Money is integer micro-dollars; timestamps are timestamptz. `entities.test.ts` checks each entity against the migrated table.
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A semantic-cache entry: a question, its embedding and the answer served for it (per tenant, step and scope). */
export const SemanticCacheEntry = defineEntity({
  name: 'SemanticCacheEntry',
  tableName: 'semantic_cache_entries',
  properties: {
    id: p.text().primary(),
    accountId: p.text(),
    step: p.text(),
    scope: p.text(),
    question: p.text(),
    embedder: p.text(),
    vector: p.blob(),
    answer: p.json<Record<string, unknown>>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime(),
  },
});
export type SemanticCacheEntry = InferEntity<typeof SemanticCacheEntry>;

export const SemanticCacheStep = defineEntity({
  name: 'SemanticCacheStep',
  tableName: 'semantic_cache_steps',
  properties: {
    accountId: p.text().primary(),
    step: p.text().primary(),
    checked: p.integer().default(0),
    failed: p.integer().default(0),
    disabled: p.boolean().default(false),
    reason: p.text().nullable(),
    updatedAt: p.datetime().defaultRaw(`now()`),
  },
});
export type SemanticCacheStep = InferEntity<typeof SemanticCacheStep>;
