// The rate limits topic (design §10: 429 with Retry-After): requests and tokens per minute for
// the tenant as a whole and for single keys, each within the platform's ceiling (server config).
import { z } from 'zod';

const perMinute = (field: string) =>
  z
    .int(`${field} must be a whole number`)
    .positive(`${field} must be at least 1 (null: no limit of the tenant's own)`)
    .max(1e12)
    .nullable()
    .default(null);

/** One pair of limits; null leaves only the platform's ceiling. */
export const rateWindow = z
  .object({
    requests_per_minute: perMinute('requests_per_minute'),
    tokens_per_minute: perMinute('tokens_per_minute'),
  })
  .strict();
export type RateWindow = z.infer<typeof rateWindow>;

/** A key's own limits (the key by its id, as GET /v1/agents/:id/keys lists it), counted apart from its siblings'. */
export const keyRateLimit = rateWindow.extend({ key_id: z.string().min(1).max(64) }).strict();
export type KeyRateLimit = z.infer<typeof keyRateLimit>;

export const rateLimitSettings = z
  .object({
    /** Every key of the tenant together. */
    tenant: rateWindow.default({ requests_per_minute: null, tokens_per_minute: null }),
    /** Single keys, each with its own counters. */
    keys: z
      .array(keyRateLimit)
      .max(1000)
      .default([])
      .refine((ks) => new Set(ks.map((k) => k.key_id)).size === ks.length, 'keys must name each key_id once'),
  })
  .strict();
export type RateLimitSettings = z.infer<typeof rateLimitSettings>;
