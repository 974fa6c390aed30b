// Stage: budget — the tenant's spend cap, dev allowance and wallet (spec 4.4, 7.2, design §11).
// Before dispatch the call's maximum cost is reserved (billing/budget.ts); a call the cap or the
// balance cannot cover is refused with its 402 before any vendor is paid. The meter settles the
// reservation to the actual charge, in the call's own write-ahead line; a call that is never
// metered gives it back (completions.ts, `finally`).
//
// What is charged: on the platform's provider keys, the vendor cost (dev allowance first, then
// the wallet); on the tenant's own keys, only the fee. The fee is fee_rate × the call's saving
// when it saved. Since fee_rate < 1, a platform call's charge (actual + fee_rate × (baseline −
// actual)) is never more than the larger of its actual and baseline cost, so the bound on what
// it may spend also bounds what it may be charged.
//
// Every call that may reach the platform's vendors reserves at least one micro-dollar, whatever
// its price (a model priced at zero, an unlisted one): a tenant whose cap, allowance or wallet
// is spent is refused 402 on every model name, before anything else is said of it. A pinned
// name the catalog does not list, on the platform's key with no price, is refused 400
// unknown_model only after that check (route.ts set the refusal).
//
// Rate limits (limits/rate-limits.ts) are checked in the same step: the call counts one request
// and its prompt's tokens plus the output it may write (max_tokens, else a default) against the
// key's and the tenant's limits per minute, or is refused 429 with Retry-After; its tokens settle
// to what the answer used when it is metered, and are given back when it fails.
import type { PipelineDeps } from './deps.ts';
import type { CallContext, Costs } from './context.ts';
import type { RoutedPlan } from './routed-plan.ts';
import type { Reservation } from '../billing/budget.ts';
import { maxCost, type CostBound } from './max-cost.ts';
import { ApiError } from '../errors.ts';
import { countPromptTokens, promptTokenBound } from './tokens.ts';
import { attemptCost } from './meter-call.ts';
import { outputReserve, RateLimitedError } from '../limits/rate-limits.ts';

/** Refusals a closer bound of the call's cost may turn into a reservation. */
const REFUSALS = new Set(['spend_cap_reached', 'wallet_empty', 'dev_allowance_exhausted']);

/** Whether counting the prompt's tokens (rather than bounding them by its size) could change this refusal. */
const closerCountMayAdmit = (e: unknown): boolean => (e instanceof RateLimitedError ? e.metric === 'tokens' : e instanceof ApiError && REFUSALS.has(e.code));

/** The tokens a call used, for its rate limits: the answer's (a cache hit used none). */
export const tokensUsed = (ctx: CallContext): number => (ctx.cacheHit || !ctx.served ? 0 : ctx.served.usage.promptTokens + ctx.served.usage.completionTokens);

export async function budgetStage(ctx: CallContext, s: PipelineDeps, plan: RoutedPlan | null): Promise<void> {
  const messages = (ctx.body.messages as unknown[] | undefined) ?? [];
  await reserveCall(ctx, s, { bound: promptTokenBound(messages), count: () => countPromptTokens(messages), cost: (tokens) => maxCost(ctx, s, plan, tokens), output: outputReserve(ctx.body) });
}

/** How to size one call: its prompt tokens bounded cheaply, counted exactly (on refusal only), and its cost bound at a token count. */
export interface CallSize {
  bound: number;
  count: () => number;
  cost: (promptTokens: number) => CostBound;
  /** The output tokens the call may write, reserved on its tokens-per-minute limits with the prompt's (none for embeddings). */
  output?: number;
}

/**
 * Reserves a call's maximum charge and spend and counts it on its rate limits, in one step; sets
 * `ctx.reservation` and `ctx.settle`. The chat path and the embeddings path both size their calls
 * through this, so both are charged, capped and limited alike.
 */
export async function reserveCall(ctx: CallContext, s: PipelineDeps, size: CallSize): Promise<void> {
  const feeRate = s.config.BILLING_FEE_RATE;
  // a production workflow whose past-due subscription's grace is over is paused (402 subscription_required)
  s.workflowLife.refusePaused(ctx.principal.accountId, ctx.principal.workflowId);
  // paid production's fee goes on the period's invoice (billing/fee-invoices.ts), not on the wallet
  const invoiced = s.workflowLife.feesInvoiced(ctx.principal.accountId, ctx.principal.workflowId);
  // on the platform's vendors at least one micro-dollar, so a spent cap, allowance or wallet refuses even a call priced at zero
  const chargeOf = (b: CostBound) => (b.platform ? Math.max(1, b.all) : invoiced ? 0 : Math.ceil(feeRate * b.baseline));
  const spendOf = (b: CostBound) => (b.platform ? Math.max(1, b.all) : b.all);
  // the prompt's size bounds its tokens: the tokenizer (a tenth of a call's CPU) runs only when a
  // reservation on that bound is refused, and the refusal then stands only if the counted one is too;
  // the rate limits are checked and counted in the same step (one round trip), tokens on that bound
  let tokens = size.bound;
  let bound = size.cost(tokens);
  let reservation: Reservation;
  try {
    reservation = await s.budget.reserve(ctx.principal.accountId, chargeOf(bound), spendOf(bound), s.rateLimits.charges(ctx.principal, tokens, size.output));
  } catch (e) {
    if (!closerCountMayAdmit(e)) throw e;
    const counted = size.count();
    const closer = size.cost(counted);
    if (counted >= tokens && closer.all >= bound.all && chargeOf(closer) >= chargeOf(bound)) throw e;
    tokens = counted;
    bound = closer;
    reservation = await s.budget.reserve(ctx.principal.accountId, chargeOf(bound), spendOf(bound), s.rateLimits.charges(ctx.principal, tokens, size.output));
  }
  const charge = chargeOf(bound);
  ctx.reservation = reservation;
  // what a routed call may spend learning after its answer is set apart, settled when that work ends (learning-job.ts)
  if (bound.learning > 0) ctx.learningReservation = s.budget.split(reservation, bound.platform ? bound.learning : 0, bound.learning);
  if (ctx.unpricedRefusal) throw ctx.unpricedRefusal; // the money was there, but the call cannot be priced (given back in the caller's finally)
  ctx.settle = (costs: Costs) => {
    const usage = ctx.attempts.filter((a) => a.paidBy === 'platform').reduce((sum, a) => sum + attemptCost(a), 0);
    const fee = Math.floor(feeRate * Math.max(0, costs.saving));
    const ledger = s.budget.settle(reservation, { callId: ctx.id, at: ctx.receivedAt, charge: usage + (invoiced ? 0 : fee), spend: costs.actual + fee }, tokensUsed(ctx));
    return { ledger, billing: { usage_micros: usage, fee_micros: fee, fee_rate: feeRate, reserved_micros: charge, ...(invoiced ? { fee_invoiced: 1 } : {}) } };
  };
}
