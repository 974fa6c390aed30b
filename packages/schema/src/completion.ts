// The completion wire format as the gateway reads it: the client's body is passed
// through untouched except for the `optimizer` annotation, which is validated here
// and removed before forwarding.
import { z } from 'zod';

export const optimizerAnnotation = z
  .object({
    run: z
      .object({
        id: z.string().min(1).max(256).optional(),
        seq: z.number().int().min(0).optional(),
        parent: z.string().min(1).max(256).optional(),
        is_start: z.boolean().optional(),
      })
      .strict()
      .optional(),
    step: z
      .object({
        id: z.string().min(1).max(256).optional(),
        kind: z.string().min(1).max(64).optional(),
        quality: z.object({ min_score: z.number().min(0).max(1).optional() }).strict().optional(),
        mode: z.enum(['discover']).optional(),
        /** This step's own learning mode, over the tenant's routing settings (`serve`, `shadow`, `off`). */
        learning_mode: z.enum(['serve', 'shadow', 'off']).optional(),
      })
      .strict()
      .optional(),
    intent: z.object({ objective: z.enum(['cost', 'quality', 'latency']).optional() }).strict().optional(),
    /**
     * Semantic cache, per call (it applies only where the tenant turned `cache.semantic` on):
     * `semantic: true` opts a multi-turn call in (its last user turn is the question, every
     * earlier message must match exactly), `false` skips it; `semantic_threshold` raises the
     * similarity bar for this call (a value below the default is ignored).
     */
    cache: z.object({ semantic: z.boolean().optional(), semantic_threshold: z.number().min(0).max(1).optional() }).strict().optional(),
    source: z
      .object({
        file: z.string().min(1).max(1024).optional(),
        line: z.number().int().min(0).optional(),
        release: z.string().min(1).max(256).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type OptimizerAnnotation = z.infer<typeof optimizerAnnotation>;

const message = z.looseObject({ role: z.string().min(1) });

/** Only what the gateway must understand; every other field passes through as sent. */
export const completionRequest = z.looseObject({
  model: z.string().min(1, 'model is required'),
  messages: z.array(message).min(1, 'messages must hold at least one message'),
  stream: z.boolean().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  optimizer: optimizerAnnotation.optional(),
});
export type CompletionRequest = z.infer<typeof completionRequest>;

/** The `optimizer` block on every completion response (USD). */
export const optimizerBlock = z.object({
  cache_hit: z.boolean(),
  baseline_cost: z.number(),
  served_cost: z.number(),
  actual_cost: z.number(),
  exploration_cost: z.number(),
  saving: z.number(),
  /** Present (true) only when the served model has no price: a model the catalog does not list, on the tenant's own key. Its costs read 0. */
  unpriced: z.literal(true).optional(),
});
export type OptimizerBlock = z.infer<typeof optimizerBlock>;
