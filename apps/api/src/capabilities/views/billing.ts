// What the billing capabilities answer (spec 4.4): the billing view (balances in USD beside their
// exact micro-dollars, which outgrow GraphQL's Int), fee statements and the savings ledger, a
// checkout, the auto top-up setting, a workflow's managed subscription and the estimate.
import { z } from 'zod';
import { LEDGER_ENTRIES_SHOWN } from '../../billing/view.ts';
import { asFloat, named, time } from '../shapes.ts';

const int = () => z.number().int();
const micros = () => asFloat(int());
const usd = () => z.number();

const BillingBalances = named('BillingBalances', z.object({ wallet_usd: usd(), dev_allowance_usd: usd(), wallet_micros: micros(), dev_allowance_micros: micros() }));

const BillingPrices = named(
  'BillingPrices',
  z.object({
    currency: z.string(),
    fee_rate: z.number().describe('The share of measured savings charged as the fee.'),
    dev_allowance_usd: usd(),
    platform_keys: z.string().describe("What a call on the platform's keys costs."),
    own_keys: z.string().describe('What a call on stored provider keys costs.'),
  }),
);

const AutoTopupAttempt = named(
  'AutoTopupAttempt',
  z
    .object({
      status: z.enum(['pending', 'succeeded', 'failed']).describe('`pending` (the webhook not in yet), `succeeded` (credited) or `failed` (not retried until the next crossing).'),
      amount_usd: usd(),
      created_at: time(),
      failure: z.string().nullable(),
    })
    .describe('An off-session charge auto top-up started.'),
);

const AutoTopup = named(
  'AutoTopup',
  z.object({
    threshold_usd: usd(),
    amount_usd: usd(),
    payment_method_saved: z.boolean().describe('Whether a card is saved (by a paid checkout top-up) for the off-session charge.'),
    last_attempt: AutoTopupAttempt.nullable(),
  }),
);

export const AutoTopupSetting = named('AutoTopupSetting', z.object({ threshold_usd: usd().nullable(), amount_usd: usd().nullable() }).describe('The auto top-up setting as stored; both null: off.'));

const subscriptionStatus = () => z.enum(['incomplete', 'active', 'cancelled', 'past_due', 'lapsed']);
const subscriptionFields = { workflow_id: z.string(), status: subscriptionStatus(), started_at: time(), current_period_end: time(), cancel_at_period_end: z.boolean() };
const standing = {
  past_due_since: time().nullable().describe('When the first payment of the open invoice failed; null unless past due.'),
  paused: z.boolean().describe("Whether production is paused (past due beyond the grace period): the workflow's calls answer 402 subscription_required until the invoice is paid."),
  price_usd: usd().describe('The monthly price the subscription was sold at (0 on a gateway without a payment processor).'),
  run_cap: int().describe('Managed runs a month this subscription adds to the tenant’s run cap.'),
};

const BillingSubscription = named('BillingSubscription', z.object({ ...subscriptionFields, price_usd: usd() }));

const StatementInvoice = named(
  'StatementInvoice',
  z
    .object({
      id: z.string().nullable().describe("The payment processor's invoice id (null until it is made)."),
      status: z
        .enum(['closing', 'nothing_due', 'carried', 'open', 'paid'])
        .describe("`carried`: the line would be under Stripe's minimum charge (0.50 USD), so it is not invoiced and goes to the next period's line."),
      fee_usd: usd().describe('The fee the period’s paid-production calls owe (fee_rate × their saving).'),
      carried_in_usd: usd().describe("Fee of earlier periods carried into this one (each under the minimum charge), on this period's line when it is invoiced."),
      carried_to: z.string().nullable().describe('For a carried period: the period (YYYY-MM) whose invoice line took its fee; null while it is still carried.'),
      line_usd: usd().describe('The invoice line: the fee plus what was carried in, in whole cents; 0 when carried.'),
      paid_usd: usd(),
      paid_from: z.enum(['card', 'wallet']).nullable(),
      failure: z.string().nullable().describe('Why the card or the wallet did not pay, when one did not.'),
    })
    .describe("The period's fee as invoiced on the payment processor once the period ended, and what was paid."),
);

const LedgerEntry = named(
  'LedgerEntry',
  z.object({
    id: z.string(),
    txn_id: z.string(),
    book: z.string(),
    amount_usd: usd(),
    amount_micros: micros(),
    kind: z.string(),
    call_id: z.string().nullable(),
    ref: z.string().nullable(),
    created_at: time(),
  }),
);

export const Billing = named(
  'Billing',
  z
    .object({
      balances: BillingBalances,
      prices: BillingPrices,
      auto_topup: AutoTopup.nullable(),
      subscriptions: z.array(BillingSubscription),
      ledger: z.array(LedgerEntry).max(LEDGER_ENTRIES_SHOWN),
    })
    .describe('Wallet and dev allowance balances, prices, auto top-up, subscriptions and the last 50 ledger entries.'),
);

const StatementSavings = named('StatementSavings', z.object({ cache: z.number(), routing: z.number(), ttc: z.number(), trace: z.number(), total: z.number() }));
const StatementPaidFrom = named('StatementPaidFrom', z.object({ dev_allowance_usd: usd(), wallet_usd: usd() }));
const StatementMicros = named('StatementMicros', z.object({ savings: StatementSavings, fees: micros(), fees_invoiced: micros(), usage: micros(), amount_due: micros() }));

const period = { period: z.string(), from: time(), to: time(), closed: z.boolean() };

export const Statement = named(
  'Statement',
  z
    .object({
      ...period,
      fee_rate: z.number(),
      calls: int(),
      savings: StatementSavings.describe('USD.'),
      baseline_usd: usd(),
      actual_usd: usd(),
      fees_usd: usd(),
      fees_invoiced_usd: usd().describe("Of the fees, paid production's: invoiced at the period's end, not in the amount due."),
      invoice: StatementInvoice.nullable(),
      usage_usd: usd(),
      amount_due_usd: usd(),
      paid_from: StatementPaidFrom,
      micros: StatementMicros,
    })
    .describe('A billing period (a calendar month, UTC) with its savings, fee rate and amount due.'),
);

const SavingsLedgerPeriod = named(
  'SavingsLedgerPeriod',
  z
    .object({
      ...period,
      calls: int(),
      savings: StatementSavings,
      fee_rate: z.number(),
      fee_usd: usd(),
      net_saving_usd: usd(),
      cumulative_saving_usd: usd(),
      cumulative_fee_usd: usd(),
      cumulative_net_saving_usd: usd(),
    })
    .describe('One billing period of the savings ledger (USD): what the calls saved by source, the fee taken from it, what was kept, and running totals.'),
);

const SavingsLedgerTotals = named('SavingsLedgerTotals', z.object({ saving_usd: usd(), fee_usd: usd(), net_saving_usd: usd() }));

export const SavingsLedger = named('SavingsLedger', z.object({ data: z.array(SavingsLedgerPeriod), totals: SavingsLedgerTotals }));

export const Checkout = named('Checkout', z.object({ url: z.string().meta({ format: 'uri' }), checkout_id: z.string() }).describe("A payment processor's hosted checkout page; the wallet is credited once it is paid."));

export const ManagedSubscription = named(
  'ManagedSubscription',
  z
    .object({
      ...subscriptionFields,
      status: subscriptionStatus().describe(
        '`incomplete` (the first payment is not through), `active`, `cancelled` (runs to the end of the paid period), `past_due` (a payment failed; production goes on through the grace period, then pauses) or `lapsed`.',
      ),
      ...standing,
    })
    .describe("A workflow's managed subscription (managed production)."),
);

const EstimateStep = named('EstimateStep', z.object({ step: z.string(), kind: z.string().nullable().describe('The kind of work the benchmark step is (a catalog capability).'), measured_saving: z.number(), projected_saving: z.number() }));
const mixLine = {
  monthly_spend_usd: usd(),
  low_rate: z.number().describe('What the product claims for this part: never above high_rate.'),
  high_rate: z.number().describe('What the routing benchmark measured for the same kind of work.'),
  low_usd: usd(),
  high_usd: usd(),
  basis: z.string().describe('What the figures rest on.'),
};
const EstimateModelLine = named('EstimateModelLine', z.object({ model: z.string(), ...mixLine }));
const EstimateKindLine = named('EstimateKindLine', z.object({ kind: z.string(), ...mixLine }));
const EstimateLine = named('EstimateLine', z.object(mixLine));
const EstimateRange = named('EstimateRange', z.object({ low_rate: z.number(), high_rate: z.number(), low_usd: usd(), high_usd: usd() }).describe('The low end is what the product claims (projected_saving_* is it, never below 0), the high end what the benchmark measured; a part measured at a loss counts as one.'));
const EstimateCache = named('EstimateCache', z.object({ measured_hit_rate: z.number(), hit_rate_lower_95: z.number(), counted: z.boolean() }));

export const Estimate = named(
  'Estimate',
  z
    .object({
      monthly_spend_usd: usd(),
      projected_saving_rate: z.number(),
      projected_saving_usd: usd(),
      range: EstimateRange,
      fee_rate: z.number(),
      projected_fee_usd: usd(),
      projected_net_saving_usd: usd(),
      under_claims: z.literal(true),
      how_derived: z.string(),
      by_model: z.array(EstimateModelLine).describe('The spend by model, each part projected (empty without by_model).'),
      by_kind: z.array(EstimateKindLine).describe('The spend by kind of work, each part projected (empty without by_kind).'),
      unnamed: EstimateLine.nullable().describe('The part of monthly_spend the mix does not name, projected as the benchmark\'s whole mix.'),
      per_step: z.array(EstimateStep),
      cache: EstimateCache.nullable(),
    })
    .describe('A projection for a hypothetical monthly spend, from measured benchmark results; it deliberately under-claims.'),
);
