import { z } from 'zod';

/** Vendors the gateway can route to. */
export const providerSchema = z.enum(['openai', 'anthropic', 'gemini', 'mistral', 'deepseek', 'xai', 'groq', 'together']);

/** `embedding` as an output marks an embedding model: served by /v1/embeddings, never routed for chat. */
export const modalitySchema = z.enum(['text', 'image', 'audio', 'video', 'embedding']);

export const reasoningEffortSchema = z.enum(['none', 'minimal', 'low', 'medium', 'high', 'max']);

/** Capabilities a model's prior strength is recorded for. */
export const capabilitySchema = z.enum([
  'code',
  'reasoning',
  'math',
  'extraction',
  'classification',
  'chat',
  'vision',
  'long_context',
  'tool_use',
]);

// zod v4's z.number() already rejects NaN and ±Infinity, so every number here is finite.
const price = z.number().nonnegative();
const limit = z.int().positive();
const name = z.string().min(1);

/**
 * One model the gateway can price and route to. Prices are USD per million tokens on the
 * vendor's standard tier (not batch, not priority), and the lowest tier where the price
 * depends on prompt length.
 */
export const modelProfileSchema = z
  .object({
    /** The vendor's model name as sent on its API, e.g. "gpt-4o-mini". */
    model: name,
    /** A built-in vendor or a custom provider registered by the admin (lowercase id). */
    provider: z.string().regex(/^[a-z][a-z0-9-]{1,39}$/, 'provider must be a lowercase id'),
    input_per_mtok: price,
    output_per_mtok: price,
    /** Price of input tokens read from the vendor's prompt cache. */
    cached_input_per_mtok: price,
    /** Multiplier on input_per_mtok for cache-write tokens; 1 where writes cost no extra. */
    cache_write_multiplier: z.number().positive(),
    input_modalities: z.array(modalitySchema).min(1),
    output_modalities: z.array(modalitySchema).min(1),
    tools: z.enum(['none', 'basic', 'full']),
    structured_outputs: z.boolean(),
    /** Effort levels the model accepts; empty for models without an effort control. */
    reasoning_efforts: z.array(reasoningEffortSchema),
    context_length: limit,
    max_output_tokens: limit,
    search_only: z.boolean(),
    moderation_only: z.boolean(),
    /** Prior capability scores in [0, 1] from public benchmarks; not measurements. */
    strengths: z.partialRecord(capabilitySchema, z.number().min(0).max(1)),
    disabled: z.boolean(),
    /** Equivalent-or-stronger models on other providers, in preference order. */
    failover: z.array(name),
    /**
     * The model's identity across vendors: profiles with the same `weights` are the same model
     * served by different vendors (open weights hosted by several), e.g. `llama-3.3-70b-instruct`.
     * A pinned model fails over only to these unless the tenant's routing allows any.
     */
    weights: z.string().min(1).max(200).optional(),
  })
  .strict();

export type ModelProfile = z.infer<typeof modelProfileSchema>;
export type Provider = z.infer<typeof providerSchema>;
export type Capability = z.infer<typeof capabilitySchema>;

/** Body of PUT /v1/admin/providers/:name. */
export const providerWriteSchema = z
  .object({
    base_url: z
      .string()
      .url('base_url must be a URL')
      .refine((u) => /^https?:\/\//.test(u), 'base_url must be http(s)')
      // a key in the URL would be stored and listed in plaintext: it goes in api_key, sealed
      .refine((u) => !URL.canParse(u) || (new URL(u).username === '' && new URL(u).password === ''), 'base_url must not carry credentials (user:password@): send the key as api_key')
      // the gateway appends the vendor's path to the base URL: a query or fragment would end up in the middle of it
      .refine((u) => !URL.canParse(u) || (new URL(u).search === '' && new URL(u).hash === '' && !/[?#]/.test(u)), 'base_url must not carry a query string or fragment')
      .refine((u) => !URL.canParse(u) || /\/v\d+[a-z0-9]*\/?$/i.test(new URL(u).pathname), 'base_url must end with the vendor version suffix, e.g. https://host/v1'),
    api_key: z.string().min(1).max(4096).optional(),
    enabled: z.boolean().default(true),
    wire: z.enum(['openai', 'anthropic', 'gemini']).default('openai'),
  })
  .strict();
export type ProviderWrite = z.infer<typeof providerWriteSchema>;

export const providerNameSchema = z.string().regex(/^[a-z][a-z0-9-]{1,39}$/, 'name must be a lowercase id (letters, digits, dashes; 2–40 characters)');

export const disabledWriteSchema = z.object({ disabled: z.boolean() }).strict();

/**
 * Body of PUT /v1/admin/catalog-aliases/:alias: the catalog model a name (a dated snapshot such
 * as `gpt-4o-mini-2024-07-18`) is priced as. The vendor still receives the name the client sent.
 */
export const catalogAliasWriteSchema = z.object({ model: name }).strict();
export type CatalogAliasWrite = z.infer<typeof catalogAliasWriteSchema>;

/**
 * The admin's price for models the catalog does not list (PUT /v1/admin/unknown-model-price):
 * without it, such a model is served only on the tenant's own provider key. USD per million
 * tokens; `max_output_tokens` bounds the reservation of a call that sets no max_tokens.
 */
export const unknownModelPriceSchema = z
  .object({
    input_per_mtok: price,
    output_per_mtok: price,
    max_output_tokens: limit.default(32_768),
  })
  .strict();
export type UnknownModelPrice = z.infer<typeof unknownModelPriceSchema>;
