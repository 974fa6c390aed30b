// The alerts settings topic (spec 4.5, 6): where alerts go (email, webhooks) and when spend
// alerts fire. `spend_cap_usd` is the cap billing enforces; the thresholds are shares of it.
import { z } from 'zod';

/** The events a tenant can be alerted about. */
export const alertEventTypes = ['spend_cap.threshold', 'drift', 'failover', 'resettled', 'wallet_low', 'auto_topup_failed'] as const;
export const alertEventType = z.enum(alertEventTypes);
export type AlertEventType = z.infer<typeof alertEventType>;

export const alertSettings = z
  .object({
    /** The month's spend cap in USD; null: no cap, so no spend alerts. */
    spend_cap_usd: z.number().positive().max(1e9).nullable().default(null),
    /** Percentages of the cap that each alert once a month when crossed. */
    spend_thresholds: z.array(z.int().min(1).max(100)).max(10).default([50, 80, 100]),
    /** The wallet balance (USD) whose crossing downwards alerts `wallet_low`, once per crossing; null: the auto top-up threshold, if set. */
    wallet_low_usd: z.number().min(0).max(1e9).nullable().default(null),
    /** Addresses that receive alert emails. */
    email_to: z.array(z.email().max(320)).max(20).default([]),
    /** Which events alert (on every channel). */
    events: z.array(alertEventType).default([...alertEventTypes]),
  })
  .strict();
export type AlertSettings = z.infer<typeof alertSettings>;

/** A webhook endpoint: its URL (http or https, no credentials, no fragment). */
export const createWebhookRequest = z
  .object({
    url: z
      .url({ protocol: /^https?$/, error: 'url must be an http:// or https:// URL' })
      .max(2048)
      // (zod runs these after a failed check too: a string that is not a URL is left to the check above)
      .refine((u) => !URL.canParse(u) || (!new URL(u).username && !new URL(u).password), 'url must not carry credentials')
      .refine((u) => !URL.canParse(u) || !new URL(u).hash, 'url must not carry a fragment'),
  })
  .strict();
export type CreateWebhookRequest = z.infer<typeof createWebhookRequest>;
