// Money: the double-entry ledger, the payment profile, auto top-ups, paid-production subscriptions, fee invoices and the payment processor events applied.
// Money is integer micro-dollars; timestamps are timestamptz. `entities.test.ts` checks each entity against the migrated table.
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const LedgerEntry = defineEntity({
  name: 'LedgerEntry',
  tableName: 'ledger_entries',
  properties: {
    id: p.text().primary(),
    txnId: p.text(),
    accountId: p.text(),
    book: p.text(),
    amountMicros: p.bigint('number'),
    kind: p.text(),
    callId: p.text().nullable(),
    ref: p.text().nullable(),
    createdAt: p.datetime().defaultRaw(`now()`),
  },
});
export type LedgerEntry = InferEntity<typeof LedgerEntry>;

export const BillingProfile = defineEntity({
  name: 'BillingProfile',
  tableName: 'billing_profiles',
  properties: {
    accountId: p.text().primary(),
    stripeCustomerId: p.text().nullable(),
    paymentMethodId: p.text().nullable(),
    autoTopupThresholdMicros: p.bigint('number').nullable(),
    autoTopupAmountMicros: p.bigint('number').nullable(),
    updatedAt: p.datetime().defaultRaw(`now()`),
    autoTopupArmed: p.boolean().default(true),
    walletLowArmed: p.boolean().default(true),
    walletLowSeq: p.integer().default(0),
  },
});
export type BillingProfile = InferEntity<typeof BillingProfile>;

export const AutoTopup = defineEntity({
  name: 'AutoTopup',
  tableName: 'auto_topups',
  properties: {
    id: p.text().primary(),
    accountId: p.text(),
    amountMicros: p.bigint('number'),
    thresholdMicros: p.bigint('number'),
    balanceMicros: p.bigint('number'),
    status: p.text(),
    paymentIntentId: p.text().nullable(),
    failure: p.text().nullable(),
    createdAt: p.datetime().defaultRaw(`now()`),
    settledAt: p.datetime().nullable(),
  },
});
export type AutoTopup = InferEntity<typeof AutoTopup>;

export const Subscription = defineEntity({
  name: 'Subscription',
  tableName: 'subscriptions',
  properties: {
    workflowId: p.text().primary(),
    accountId: p.text(),
    status: p.text(),
    startedAt: p.datetime().defaultRaw(`now()`),
    currentPeriodEnd: p.datetime(),
    cancelAtPeriodEnd: p.boolean().default(false),
    priceMicros: p.bigint('number'),
    stripeSubscriptionId: p.text().nullable(),
    stripeStatus: p.text().nullable(),
    runCap: p.integer().default(0),
    pastDueSince: p.datetime().nullable(),
    pausedFrom: p.datetime().nullable(),
    syncedAt: p.datetime().nullable(),
  },
});
export type Subscription = InferEntity<typeof Subscription>;

export const FeeInvoice = defineEntity({
  name: 'FeeInvoice',
  tableName: 'fee_invoices',
  properties: {
    accountId: p.text().primary(),
    period: p.text().primary(),
    status: p.text(),
    feeMicros: p.bigint('number'),
    lineCents: p.bigint('number'),
    stripeInvoiceId: p.text().nullable(),
    paidCents: p.bigint('number').default(0),
    paidFrom: p.text().nullable(),
    failure: p.text().nullable(),
    createdAt: p.datetime().defaultRaw(`now()`),
    updatedAt: p.datetime().defaultRaw(`now()`),
    /** Fee of earlier periods under Stripe's minimum charge, carried into this one. */
    carriedInMicros: p.bigint('number').default(0),
    /** The period this one's fee was carried to, when it was under the minimum. */
    carriedTo: p.text().nullable(),
  },
});
export type FeeInvoice = InferEntity<typeof FeeInvoice>;

export const StripeEvent = defineEntity({
  name: 'StripeEvent',
  tableName: 'stripe_events',
  properties: {
    id: p.text().primary(),
    type: p.text(),
    accountId: p.text().nullable(),
    created: p.datetime(),
    receivedAt: p.datetime().defaultRaw(`now()`),
  },
});
export type StripeEvent = InferEntity<typeof StripeEvent>;
