// Routing settings and outcome signals, shared by server, SDK and web app.
import { z } from 'zod';

const unit = z.number().min(0).max(1);

/**
 * How a step learns: `serve` (the default) tries unproven candidates on a sampled share of its
 * calls within the quality-risk budget, `shadow` only probes them beside the served answer, after
 * it is sent, `off` never explores.
 */
export const learningMode = z.enum(['serve', 'shadow', 'off']);

/**
 * Where a pinned model's call may go when its vendor fails: `same_model` (the default) only to
 * the same model on another vendor that serves it (catalog `weights`), `any` also to the
 * catalog's equivalent models on other vendors (its `failover` list).
 */
export const failoverScope = z.enum(['same_model', 'any']);
const modelName = z.string().trim().min(1).max(256);

/**
 * The server's routing-settings write. Spec 4.5: the raw write accepts a misspelled
 * tier key without error (that tier then learns from zero); the SDK and web app use
 * a strict variant that refuses it.
 */
/** The longest a cached answer may be kept (30 days). */
export const MAX_CACHE_TTL_S = 30 * 24 * 3600;

export const routingSettingsWrite = z
  .object({
    mode: z.enum(['auto', 'pinned', 'off']).optional(),
    allowed_providers: z.array(z.string().regex(/^[a-z][a-z0-9-]{1,39}$/)).optional(),
    tiebreak: z.enum(['cost', 'latency', 'quality']).optional(),
    ladders: z.record(z.string(), z.array(modelName)).optional(),
    band: unit.optional(),
    learning_mode: learningMode.optional(),
    advanced_search: z.boolean().optional(),
    failover: failoverScope.optional(),
    baseline_model: modelName.optional(),
    judge_model: modelName.optional(),
    quality_floor: unit.optional(),
    exploration: z
      .object({
        // the most exploration may take of a step's own baseline spend so far (default 0.1)
        step_share: unit.optional(),
        // an optional fixed cap per step, on top of the share
        step_budget_usd: z.number().min(0).optional(),
        daily_budget_usd: z.number().min(0).optional(),
      })
      .strict()
      .optional(),
    cache: z
      .object({
        exact: z.boolean().optional(),
        semantic: z.boolean().optional(),
        // at most 30 days: an answer older than that is more likely stale than saved
        ttl_seconds: z.int().min(0).max(MAX_CACHE_TTL_S).optional(),
        semantic_threshold: unit.optional(),
        // the share of served semantic hits that may be wrong; on, a step serves a semantic hit
        // only where its verified record supports it (null: no verification, the threshold alone)
        semantic_error_bound: z.number().gt(0).max(0.5).nullable().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type RoutingSettingsWrite = z.infer<typeof routingSettingsWrite>;

/** The routing tiers a ladder may be set for. */
export const routingTiers = ['economy', 'standard', 'premium'] as const;
export const routingTierSchema = z.enum(routingTiers);
export type RoutingTier = z.infer<typeof routingTierSchema>;

/**
 * The client-side routing write (SDK, web app): the server's schema above with the ladder
 * keys closed to the known tiers, so `ladders.premuim` is refused before it is sent
 * instead of silently retraining a tier nobody routes to. Everything else is the server's.
 */
export const routingSettingsClient = routingSettingsWrite.extend({
  ladders: z
    .object(Object.fromEntries(routingTiers.map((t) => [t, z.array(modelName).optional()])) as Record<RoutingTier, z.ZodOptional<z.ZodArray<typeof modelName>>>)
    .strict()
    .optional(),
});
export type RoutingSettingsClient = z.infer<typeof routingSettingsClient>;

export const outcomeSignals = z
  .object({
    schema_valid: z.boolean().optional(),
    tool_executed: z.boolean().optional(),
    retried: z.boolean().optional(),
    run_completed: z.boolean().optional(),
    human_verdict: z.enum(['accepted', 'edited', 'rejected']).optional(),
    score: z.number().min(0).max(1).optional(),
  })
  .strict()
  .refine((s) => Object.keys(s).length > 0, 'signals must hold at least one signal');

export const outcomeRequest = z
  .object({ run_id: z.string().min(1).max(256), step_id: z.string().min(1).max(256), signals: outcomeSignals })
  .strict();
export type OutcomeRequest = z.infer<typeof outcomeRequest>;
