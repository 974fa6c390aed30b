// The tenant's routing settings (PUT /v1/settings/routing). Self-contained (zod only),
// so the server can import it too. Every object is strict: the raw server write keeps
// a misspelled key such as ladders.premuim without complaint, so this schema is what
// refuses it.
import { z } from 'zod';

export const routingTiers = ['economy', 'standard', 'premium'] as const;
export const routingTierSchema = z.enum(routingTiers);
export type RoutingTier = z.infer<typeof routingTierSchema>;

const unit = z.number().min(0).max(1);
const modelName = z.string().trim().min(1).max(256);
const ladder = z.array(modelName);

export const routingSettingsSchema = z
  .object({
    mode: z.enum(['auto', 'pinned', 'off']).optional(),
    allowed_providers: z.array(z.string().regex(/^[a-z][a-z0-9-]{1,39}$/, 'provider must be a lowercase id')).optional(),
    tiebreak: z.enum(['cost', 'latency', 'quality']).optional(),
    /** Model ladders per tier; a tier left out keeps its current ladder. */
    ladders: z.object({ economy: ladder.optional(), standard: ladder.optional(), premium: ladder.optional() }).strict().optional(),
    band: unit.optional(),
    learning_mode: z.enum(['explore', 'exploit', 'off']).optional(),
    advanced_search: z.boolean().optional(),
    baseline_model: modelName.optional(),
    judge_model: modelName.optional(),
    quality_floor: unit.optional(),
    /**
     * Spend on learning (probes and judge grades): at most `step_share` of a step's own baseline
     * spend so far (default 0.1; 0 turns exploring off), an optional fixed cap per step, and a
     * budget per tenant per rolling day.
     */
    exploration: z
      .object({ step_share: unit.optional(), step_budget_usd: z.number().min(0).optional(), daily_budget_usd: z.number().min(0).optional() })
      .strict()
      .optional(),
    cache: z
      .object({
        exact: z.boolean().optional(),
        semantic: z.boolean().optional(),
        ttl_seconds: z.int().min(0).max(30 * 24 * 3600).optional(),
        semantic_threshold: unit.optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export type RoutingSettings = z.infer<typeof routingSettingsSchema>;
