// Billing over GraphQL (spec 4.4): the billing view, fee statements, a top-up (a hosted
// checkout; the wallet is credited once per payment by Stripe's signed webhook), a workflow's
// managed subscription, and the estimate. REST's fields, camelCased; amounts in USD beside
// their exact micro-dollars (Float: they outgrow Int).
import { autoTopupRequest, estimateRequest, statementsQuery, topupRequest, workflowRef } from '@optimizer/schema';
import { billingView, createTopup, estimateSavings, listStatements, savingsLedger, setAutoTopup, startSubscription, subscription, cancelSubscription } from '../../domain/billing.ts';
import { type Builder, capability, reader, toWire, type GraphQLContext } from '../builder.ts';
import { parseWith } from '../../http/validate.ts';

export function registerBilling(builder: Builder) {
  type View = Awaited<ReturnType<typeof billingView>>;
  type Statement = Awaited<ReturnType<typeof listStatements>>[number];
  type SubscriptionView = Awaited<ReturnType<typeof subscription>>;
  type Estimate = ReturnType<typeof estimateSavings>;

  const Balances = builder.objectRef<View['balances']>('BillingBalances').implement({
    fields: (t) => ({
      walletUsd: t.exposeFloat('wallet_usd'),
      devAllowanceUsd: t.exposeFloat('dev_allowance_usd'),
      walletMicros: t.exposeFloat('wallet_micros'),
      devAllowanceMicros: t.exposeFloat('dev_allowance_micros'),
    }),
  });

  const Prices = builder.objectRef<View['prices']>('BillingPrices').implement({
    fields: (t) => ({
      currency: t.exposeString('currency'),
      feeRate: t.exposeFloat('fee_rate', { description: 'The share of measured savings charged as the fee.' }),
      devAllowanceUsd: t.exposeFloat('dev_allowance_usd'),
      platformKeys: t.exposeString('platform_keys', { description: "What a call on the platform's keys costs." }),
      ownKeys: t.exposeString('own_keys', { description: 'What a call on stored provider keys costs.' }),
    }),
  });

  const AutoTopupAttempt = builder.objectRef<NonNullable<NonNullable<View['auto_topup']>['last_attempt']>>('AutoTopupAttempt').implement({
    description: 'An off-session charge auto top-up started.',
    fields: (t) => ({
      status: t.exposeString('status', { description: '`pending` (the webhook not in yet), `succeeded` (credited) or `failed` (not retried until the next crossing).' }),
      amountUsd: t.exposeFloat('amount_usd'),
      createdAt: t.exposeString('created_at'),
      failure: t.exposeString('failure', { nullable: true }),
    }),
  });

  const AutoTopup = builder.objectRef<NonNullable<View['auto_topup']>>('AutoTopup').implement({
    fields: (t) => ({
      thresholdUsd: t.exposeFloat('threshold_usd'),
      amountUsd: t.exposeFloat('amount_usd'),
      paymentMethodSaved: t.exposeBoolean('payment_method_saved', { description: 'Whether a card is saved (by a paid checkout top-up) for the off-session charge.' }),
      lastAttempt: t.field({ type: AutoTopupAttempt, nullable: true, resolve: (a) => a.last_attempt }),
    }),
  });

  const AutoTopupSettingRef = builder.objectRef<Awaited<ReturnType<typeof setAutoTopup>>>('AutoTopupSetting').implement({
    description: 'The auto top-up setting as stored; both null: off.',
    fields: (t) => ({ thresholdUsd: t.exposeFloat('threshold_usd', { nullable: true }), amountUsd: t.exposeFloat('amount_usd', { nullable: true }) }),
  });

  const BillingSubscription = builder.objectRef<View['subscriptions'][number]>('BillingSubscription').implement({
    fields: (t) => ({
      workflowId: t.exposeString('workflow_id'),
      status: t.exposeString('status'),
      startedAt: t.exposeString('started_at'),
      currentPeriodEnd: t.exposeString('current_period_end'),
      cancelAtPeriodEnd: t.exposeBoolean('cancel_at_period_end'),
      priceUsd: t.exposeFloat('price_usd'),
    }),
  });

  const LedgerEntry = builder.objectRef<View['ledger'][number]>('LedgerEntry').implement({
    fields: (t) => ({
      id: t.exposeString('id'),
      txnId: t.exposeString('txn_id'),
      book: t.exposeString('book'),
      amountUsd: t.exposeFloat('amount_usd'),
      amountMicros: t.exposeFloat('amount_micros'),
      kind: t.exposeString('kind'),
      callId: t.exposeString('call_id', { nullable: true }),
      ref: t.exposeString('ref', { nullable: true }),
      createdAt: t.exposeString('created_at'),
    }),
  });

  const Billing = builder.objectRef<View>('Billing').implement({
    description: 'Wallet and dev allowance balances, prices, auto top-up, subscriptions and the last 50 ledger entries.',
    fields: (t) => ({
      balances: t.field({ type: Balances, resolve: (v) => v.balances }),
      prices: t.field({ type: Prices, resolve: (v) => v.prices }),
      autoTopup: t.field({ type: AutoTopup, nullable: true, resolve: (v) => v.auto_topup }),
      subscriptions: t.field({ type: [BillingSubscription], resolve: (v) => v.subscriptions }),
      ledger: t.field({ type: [LedgerEntry], resolve: (v) => v.ledger }),
    }),
  });

  const BySource = builder.objectRef<Record<'cache' | 'routing' | 'ttc' | 'trace' | 'total', number>>('StatementSavings').implement({
    fields: (t) => ({
      cache: t.exposeFloat('cache'),
      routing: t.exposeFloat('routing'),
      ttc: t.exposeFloat('ttc'),
      trace: t.exposeFloat('trace'),
      total: t.exposeFloat('total'),
    }),
  });

  const PaidFrom = builder.objectRef<Statement['paid_from']>('StatementPaidFrom').implement({
    fields: (t) => ({ devAllowanceUsd: t.exposeFloat('dev_allowance_usd'), walletUsd: t.exposeFloat('wallet_usd') }),
  });

  const StatementMicros = builder.objectRef<Statement['micros']>('StatementMicros').implement({
    fields: (t) => ({
      savings: t.field({ type: BySource, resolve: (m) => m.savings }),
      fees: t.exposeFloat('fees'),
      usage: t.exposeFloat('usage'),
      amountDue: t.exposeFloat('amount_due'),
    }),
  });

  const StatementRef = builder.objectRef<Statement>('Statement').implement({
    description: 'A billing period (a calendar month, UTC) with its savings, fee rate and amount due.',
    fields: (t) => ({
      period: t.exposeString('period'),
      from: t.exposeString('from'),
      to: t.exposeString('to'),
      closed: t.exposeBoolean('closed'),
      feeRate: t.exposeFloat('fee_rate'),
      calls: t.exposeInt('calls'),
      savings: t.field({ type: BySource, description: 'USD.', resolve: (s) => s.savings as Record<'cache' | 'routing' | 'ttc' | 'trace' | 'total', number> }),
      baselineUsd: t.exposeFloat('baseline_usd'),
      actualUsd: t.exposeFloat('actual_usd'),
      feesUsd: t.exposeFloat('fees_usd'),
      usageUsd: t.exposeFloat('usage_usd'),
      amountDueUsd: t.exposeFloat('amount_due_usd'),
      paidFrom: t.field({ type: PaidFrom, resolve: (s) => s.paid_from }),
      micros: t.field({ type: StatementMicros, resolve: (s) => s.micros }),
    }),
  });

  type Ledger = Awaited<ReturnType<typeof savingsLedger>>;

  const SavingsLedgerPeriod = builder.objectRef<Ledger['data'][number]>('SavingsLedgerPeriod').implement({
    description: 'One billing period of the savings ledger (USD): what the calls saved by source, the fee taken from it, what was kept, and running totals.',
    fields: (t) => ({
      period: t.exposeString('period'),
      from: t.exposeString('from'),
      to: t.exposeString('to'),
      closed: t.exposeBoolean('closed'),
      calls: t.exposeInt('calls'),
      savings: t.field({ type: BySource, resolve: (p) => p.savings as Record<'cache' | 'routing' | 'ttc' | 'trace' | 'total', number> }),
      feeRate: t.exposeFloat('fee_rate'),
      feeUsd: t.exposeFloat('fee_usd'),
      netSavingUsd: t.exposeFloat('net_saving_usd'),
      cumulativeSavingUsd: t.exposeFloat('cumulative_saving_usd'),
      cumulativeFeeUsd: t.exposeFloat('cumulative_fee_usd'),
      cumulativeNetSavingUsd: t.exposeFloat('cumulative_net_saving_usd'),
    }),
  });

  const SavingsLedgerTotals = builder.objectRef<Ledger['totals']>('SavingsLedgerTotals').implement({
    fields: (t) => ({ savingUsd: t.exposeFloat('saving_usd'), feeUsd: t.exposeFloat('fee_usd'), netSavingUsd: t.exposeFloat('net_saving_usd') }),
  });

  const SavingsLedger = builder.objectRef<Ledger>('SavingsLedger').implement({
    fields: (t) => ({ data: t.field({ type: [SavingsLedgerPeriod], resolve: (l) => l.data }), totals: t.field({ type: SavingsLedgerTotals, resolve: (l) => l.totals }) }),
  });

  const Checkout = builder.objectRef<{ url: string; checkout_id: string }>('Checkout').implement({
    description: "A payment processor's hosted checkout page; the wallet is credited once it is paid.",
    fields: (t) => ({ url: t.exposeString('url'), checkoutId: t.exposeString('checkout_id') }),
  });

  const ManagedSubscription = builder.objectRef<SubscriptionView>('ManagedSubscription').implement({
    description: "A workflow's managed subscription (managed production).",
    fields: (t) => ({
      workflowId: t.exposeString('workflow_id'),
      status: t.exposeString('status', { description: '`active`, `cancelled` (runs to the end of the paid period) or `lapsed`.' }),
      startedAt: t.exposeString('started_at'),
      currentPeriodEnd: t.exposeString('current_period_end'),
      cancelAtPeriodEnd: t.exposeBoolean('cancel_at_period_end'),
    }),
  });

  const EstimateStep = builder.objectRef<Estimate['per_step'][number]>('EstimateStep').implement({
    fields: (t) => ({ step: t.exposeString('step'), measuredSaving: t.exposeFloat('measured_saving'), projectedSaving: t.exposeFloat('projected_saving') }),
  });

  const EstimateCache = builder.objectRef<NonNullable<Estimate['cache']>>('EstimateCache').implement({
    fields: (t) => ({ measuredHitRate: t.exposeFloat('measured_hit_rate'), hitRateLower95: t.exposeFloat('hit_rate_lower_95'), counted: t.exposeBoolean('counted') }),
  });

  const EstimateRef = builder.objectRef<Estimate>('Estimate').implement({
    description: 'A projection for a hypothetical monthly spend, from measured benchmark results; it deliberately under-claims.',
    fields: (t) => ({
      monthlySpendUsd: t.exposeFloat('monthly_spend_usd'),
      projectedSavingRate: t.exposeFloat('projected_saving_rate'),
      projectedSavingUsd: t.exposeFloat('projected_saving_usd'),
      feeRate: t.exposeFloat('fee_rate'),
      projectedFeeUsd: t.exposeFloat('projected_fee_usd'),
      projectedNetSavingUsd: t.exposeFloat('projected_net_saving_usd'),
      underClaims: t.exposeBoolean('under_claims'),
      howDerived: t.exposeString('how_derived'),
      perStep: t.field({ type: [EstimateStep], resolve: (e) => e.per_step }),
      cache: t.field({ type: EstimateCache, nullable: true, resolve: (e) => e.cache }),
    }),
  });

  builder.queryFields((t) => ({
    billing: t.field({ type: Billing, resolve: reader(billingView) }),
    statements: t.field({
      type: [StatementRef],
      description: 'A statement per month from `from`\'s to `to`\'s (YYYY-MM-DD; default: this month), newest first.',
      args: { from: t.arg.string(), to: t.arg.string() },
      resolve: capability(statementsQuery, listStatements),
    }),
    savingsLedger: t.field({
      type: SavingsLedger,
      description: "Per month from `from`'s to `to`'s (YYYY-MM-DD; default: this month), oldest first.",
      args: { from: t.arg.string(), to: t.arg.string() },
      resolve: capability(statementsQuery, savingsLedger),
    }),
    subscription: t.field({ type: ManagedSubscription, args: { id: t.arg.string({ required: true }) }, resolve: capability(workflowRef, subscription) }),
    estimate: t.field({
      type: EstimateRef,
      description: 'Needs no tenant (spec 5); any credential of this door will do.',
      args: { monthlySpend: t.arg.float({ required: true }) },
      resolve: (_root, args, ctx: GraphQLContext) => estimateSavings(ctx.services, parseWith(estimateRequest, toWire(args))),
    }),
  }));

  builder.mutationFields((t) => ({
    createTopup: t.field({
      type: Checkout,
      description: 'A hosted checkout page that tops the wallet up by `amountUsd` once paid.',
      args: { amountUsd: t.arg.float({ required: true }) },
      resolve: capability(topupRequest, createTopup),
    }),
    setAutoTopup: t.field({
      type: AutoTopupSettingRef,
      description: 'When a charge takes the wallet below `thresholdUsd`, `amountUsd` is charged once to the card the first checkout saved; both null turns it off.',
      args: { thresholdUsd: t.arg.float(), amountUsd: t.arg.float() },
      resolve: capability(autoTopupRequest, setAutoTopup, (args) => ({ threshold_usd: args.thresholdUsd ?? null, amount_usd: args.amountUsd ?? null })),
    }),
    startSubscription: t.field({ type: ManagedSubscription, description: 'Starts managed production (needs a finalized report).', args: { id: t.arg.string({ required: true }) }, resolve: capability(workflowRef, startSubscription) }),
    cancelSubscription: t.field({ type: ManagedSubscription, description: 'Cancels at the end of the paid period.', args: { id: t.arg.string({ required: true }) }, resolve: capability(workflowRef, cancelSubscription) }),
  }));
}
