// Billing as the tenant reads and moves it (spec 4.4): the billing view, fee statements, a
// top-up (a hosted checkout; the wallet is credited once per payment by the signed webhook, so
// a repeated top-up request never credits twice), a workflow's managed subscription, and the
// estimate for a prospect (no tenant needed).
import type { z } from 'zod';
import type { AutoTopupRequest, EstimateRequest, StatementsQuery, TopupRequest, workflowRef } from '@optimizer/schema';
import { estimate, loadEstimateBasis, type EstimateBasis } from '../billing/estimate.ts';
import type { Prices } from '../billing/estimate-mix.ts';
import type { Services } from '../services.ts';
import { ownWorkflow, type Tenant } from './tenant.ts';

type Ref = z.output<typeof workflowRef>;

export function billingView(s: Services, t: Tenant) {
  return s.billing.view(t.accountId);
}

/** A statement per month from `from`'s to `to`'s (default: this month), newest first. */
export function listStatements(s: Services, t: Tenant, q: StatementsQuery) {
  return s.statements.list(t.accountId, q);
}

/** Per period from `from`'s month to `to`'s, oldest first: savings by source, the fee, what was kept, running totals. */
export function savingsLedger(s: Services, t: Tenant, q: StatementsQuery) {
  return s.statements.savingsLedger(t.accountId, q);
}

/** A hosted checkout page for `amount_usd`; the wallet is credited when it is paid. */
export async function createTopup(s: Services, t: Tenant, q: TopupRequest) {
  const checkout = await s.payments.topup(t.accountId, q.amount_usd);
  return { url: checkout.url, checkout_id: checkout.id };
}

/**
 * Auto top-up: when a charge takes the wallet below `threshold_usd`, `amount_usd` is charged
 * once to the card the first checkout saved (both null turns it off). Answers the setting.
 */
export function setAutoTopup(s: Services, t: Tenant, q: AutoTopupRequest) {
  return s.autoTopups.set(t.accountId, q);
}

/** The workflow's managed subscription; 404 when the workflow is not the tenant's or has none. */
export async function subscription(s: Services, t: Tenant, q: Ref) {
  await ownWorkflow(s, t, q.id);
  return s.subscriptions.get(t.accountId, q.id);
}

/** Starts managed production for the workflow (it needs a finalized report). */
export function startSubscription(s: Services, t: Tenant, q: Ref) {
  return s.subscriptions.start(t.accountId, q.id);
}

/** Cancels at the end of the paid period. */
export function cancelSubscription(s: Services, t: Tenant, q: Ref) {
  return s.subscriptions.cancel(t.accountId, q.id);
}

let basis: EstimateBasis | null = null;

/** Blended catalog prices (input + output per million tokens), for scaling the estimate of spend by model. */
function catalogPrices(s: Services): Prices {
  const chat = s.catalog.all().filter((m) => !m.disabled && !m.search_only && !m.moderation_only && m.output_modalities.includes('text'));
  const blended = (m: { input_per_mtok: number; output_per_mtok: number }) => m.input_per_mtok + m.output_per_mtok;
  return {
    blended: (model) => {
      const p = s.catalog.get(model) ?? s.catalog.aliasOf(model);
      return p ? blended(p) : undefined;
    },
    cheapest: Math.min(...chat.map(blended).filter((x) => x > 0)),
  };
}

/** A projection for a hypothetical monthly spend, from measured benchmark results (spec 5: no credential needed). */
export function estimateSavings(s: Services, q: EstimateRequest) {
  basis ??= loadEstimateBasis();
  return estimate(basis, q, s.config.BILLING_FEE_RATE, catalogPrices(s));
}
