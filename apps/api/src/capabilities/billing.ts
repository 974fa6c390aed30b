// Billing as the tenant reads and moves it (spec 4.4): the billing view, fee statements and the
// savings ledger, a top-up (a hosted checkout; the wallet is credited once per payment by the
// signed webhook, which is no capability: Stripe calls it with a raw body), auto top-up, a
// workflow's managed subscription, and the estimate for a prospect (no credential needed).
import { z } from 'zod';
import { autoTopupRequest, estimateRequest, statementsQuery, topupRequest, workflowRef } from '@optimizer/schema';
import {
  billingView,
  cancelSubscription as unsubscribe,
  createTopup,
  estimateSavings,
  listStatements,
  savingsLedger,
  setAutoTopup,
  startSubscription as subscribe,
  subscription as readSubscription,
} from '../domain/billing.ts';
import { capability } from './capability.ts';
import { AutoTopupSetting, Billing, Checkout, Estimate, ManagedSubscription, SavingsLedger, Statement } from './views/billing.ts';

const tag = 'Billing';
const month = "Per calendar month (UTC) from `from`'s to `to`'s (default: this month)";

export const billing = {
  view: capability({
    auth: 'control',
    output: Billing,
    run: billingView,
    rest: {
      method: 'get',
      path: '/v1/billing',
      noStore: true,
      tag,
      summary: 'Wallet, dev allowance, prices, auto top-up, subscriptions and the last 50 ledger entries',
      answer: 'The billing view (USD, with the exact micro-dollar amounts beside).',
    },
    graphql: { name: 'billing' },
  }),
  statements: capability({
    auth: 'control',
    input: statementsQuery,
    output: z.array(Statement),
    run: listStatements,
    rest: { method: 'get', path: '/v1/billing/statements', list: true, tag, summary: 'Fee statements', answer: 'The statements in the period.' },
    graphql: { name: 'statements', description: "A statement per month from `from`'s to `to`'s (YYYY-MM-DD; default: this month), newest first." },
  }),
  savingsLedger: capability({
    auth: 'control',
    input: statementsQuery,
    output: SavingsLedger,
    run: savingsLedger,
    rest: {
      method: 'get',
      path: '/v1/billing/savings-ledger',
      tag,
      summary: 'The savings ledger',
      description: `${month}, oldest first: what the calls saved by source, the fee taken from it, what the tenant kept, and running totals. The same figures as the statements.`,
      answer: 'The periods and their totals (USD).',
    },
    graphql: { name: 'savingsLedger', description: "Per month from `from`'s to `to`'s (YYYY-MM-DD; default: this month), oldest first." },
  }),
  topup: capability({
    auth: 'control',
    input: topupRequest,
    output: Checkout,
    run: createTopup,
    rest: { method: 'post', path: '/v1/billing/topup', status: 201, noStore: true, tag, summary: 'Top up the wallet through a hosted checkout page', answer: 'The checkout page.', errors: ['payment_unavailable'] },
    graphql: { name: 'createTopup', description: 'A hosted checkout page that tops the wallet up by `amountUsd` once paid.' },
  }),
  setAutoTopup: capability({
    auth: 'control',
    input: autoTopupRequest,
    output: AutoTopupSetting,
    run: setAutoTopup,
    rest: {
      method: 'put',
      path: '/v1/billing/auto-topup',
      tag,
      summary: 'Set or turn off auto top-up',
      description:
        'When a charge takes the wallet below `threshold_usd`, `amount_usd` is charged once (off-session) to the card the first paid checkout saved, and credited when Stripe confirms it. Once per crossing: a declined charge alerts `auto_topup_failed` and is not retried until the wallet has been back at or above the threshold. Both null turns it off.',
      answer: 'The setting as stored.',
    },
    graphql: {
      name: 'setAutoTopup',
      description: 'When a charge takes the wallet below `thresholdUsd`, `amountUsd` is charged once to the card the first checkout saved; both null turns it off.',
    },
  }),
  estimate: capability({
    auth: 'none',
    kind: 'query',
    input: estimateRequest,
    output: Estimate,
    run: (s, _caller, q) => estimateSavings(s, q),
    rest: {
      method: 'post',
      path: '/v1/estimate',
      tag,
      summary: 'Project the saving on a monthly spend',
      description:
        'For a prospect, from measured benchmark results; deliberately under-claims. Takes a monthly total, the spend by model, or by kind of work; each part is projected as a range whose low end is the claim and whose high end is what the routing benchmark measured for the same kind. Limited per client address (DOOR_ESTIMATE_PER_MINUTE).',
      answer: 'The projection.',
      errors: ['rate_limited'],
    },
    graphql: {
      name: 'estimate',
      description: 'Needs no tenant (spec 5); any credential of this door will do.',
      inputTypes: { by_model: { name: 'EstimateModelSpendInput', description: 'Monthly spend on one model.' }, by_kind: { name: 'EstimateKindSpendInput', description: 'Monthly spend on one kind of work (a catalog capability).' } },
    },
  }),
};

// A workflow's managed subscription (managed Production): capabilities of the workflow (index.ts).
export const subscription = capability({
  auth: 'control',
  input: workflowRef,
  output: ManagedSubscription,
  run: readSubscription,
  rest: { method: 'get', path: '/v1/workflows/:id/subscription', tag: 'Workflows', summary: "The workflow's managed subscription", answer: 'The subscription.', errors: ['not_found'] },
  graphql: { name: 'subscription' },
});

export const startSubscription = capability({
  auth: 'control',
  input: workflowRef,
  output: ManagedSubscription,
  run: subscribe,
  rest: {
    method: 'post',
    path: '/v1/workflows/:id/subscription',
    status: 201,
    tag: 'Workflows',
    summary: 'Start managed Production (subscribe)',
    answer: 'The subscription.',
    errors: ['not_found', 'conflict', 'payment_unavailable', 'payment_method_required', 'payment_declined', 'wallet_empty'],
  },
  graphql: { name: 'startSubscription', description: 'Starts managed production (needs a finalized report).' },
});

export const cancelSubscription = capability({
  auth: 'control',
  input: workflowRef,
  output: ManagedSubscription,
  run: unsubscribe,
  rest: { method: 'delete', path: '/v1/workflows/:id/subscription', tag: 'Workflows', summary: 'Cancel at the end of the paid period', answer: 'The subscription, set to end.', errors: ['not_found'] },
  graphql: { name: 'cancelSubscription', description: 'Cancels at the end of the paid period.' },
});
