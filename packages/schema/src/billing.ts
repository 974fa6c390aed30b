// Billing request bodies shared by the server, the SDK and the web app (spec 4.4, 4.5).
import { z } from 'zod';
import { capabilitySchema } from './catalog.ts';

const usd = (name: string) => z.number({ error: `${name} must be a number of USD` }).finite();

/** The smallest top-up, by checkout or automatic (USD). */
export const TOPUP_MIN_USD = 1;

export const topupRequest = z.object({ amount_usd: usd('amount_usd').min(TOPUP_MIN_USD, `amount_usd must be at least ${TOPUP_MIN_USD}`).max(100_000) }).strict();
export type TopupRequest = z.infer<typeof topupRequest>;

/** Both null turns auto top-up off; both set turns it on (a charge of `amount_usd` when the wallet falls below `threshold_usd`). */
export const autoTopupRequest = z
  .object({
    threshold_usd: usd('threshold_usd').min(0, 'threshold_usd must be at least 0').max(100_000).nullable(),
    amount_usd: usd('amount_usd').min(TOPUP_MIN_USD, `amount_usd must be at least ${TOPUP_MIN_USD} (the top-up minimum)`).max(100_000).nullable(),
  })
  .strict()
  .superRefine((v, ctx) => {
    if ((v.threshold_usd === null) === (v.amount_usd === null)) return;
    const missing = v.threshold_usd === null ? 'threshold_usd' : 'amount_usd';
    ctx.addIssue({ code: 'custom', path: [missing], message: `${missing} is null: set both threshold_usd and amount_usd, or both null to turn auto top-up off` });
  });
export type AutoTopupRequest = z.infer<typeof autoTopupRequest>;

const spend = (name: string) => usd(name).min(0).max(1e9);
const mixModel = z.object({ model: z.string().trim().min(1).max(256), monthly_spend: spend('monthly_spend') }).strict();
const mixKind = z.object({ kind: capabilitySchema, monthly_spend: spend('monthly_spend') }).strict();

/**
 * The spend to project: a monthly total, the customer's mix by model or by kind of work (step
 * kind), or both (the part of the total the mix does not name is projected as the benchmark's mix).
 */
export const estimateRequest = z
  .object({
    monthly_spend: spend('monthly_spend').optional(),
    by_model: z.array(mixModel).max(200).optional(),
    by_kind: z.array(mixKind).max(50).optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    const named = [...(v.by_model ?? []), ...(v.by_kind ?? [])].reduce((a, m) => a + m.monthly_spend, 0);
    if (v.monthly_spend === undefined && v.by_model === undefined && v.by_kind === undefined) {
      ctx.addIssue({ code: 'custom', path: ['monthly_spend'], message: 'send monthly_spend, by_model or by_kind' });
    } else if (v.monthly_spend !== undefined && named > v.monthly_spend + 1e-6) {
      ctx.addIssue({ code: 'custom', path: ['monthly_spend'], message: `monthly_spend (${v.monthly_spend}) is less than the mix it is split into (${named})` });
    }
  });
export type EstimateRequest = z.infer<typeof estimateRequest>;

export const statementsQuery = z
  .object({
    from: z.iso.date('from must be a date (YYYY-MM-DD)').optional(),
    to: z.iso.date('to must be a date (YYYY-MM-DD)').optional(),
  })
  .strict();
export type StatementsQuery = z.infer<typeof statementsQuery>;

/** Support credit from the admin API (not a payment): moves money from the platform's grants book. */
export const adminCreditRequest = z.object({ amount_usd: usd('amount_usd').min(0.000001).max(100_000), reason: z.string().trim().min(1).max(200) }).strict();
export type AdminCreditRequest = z.infer<typeof adminCreditRequest>;
