// Billing as the tenant reads and moves it (spec 4.4): the billing view, fee statements, the
// savings ledger, a top-up through a hosted checkout, auto top-up, and the estimate for a
// prospect (no key needed). Routes and types are the server's capabilities (rest/routes.gen.ts).
import { callCapability, type CallOptions, type CapabilityInput, type CapabilityOutput } from '../rest/route.ts';
import type { Transport } from '../transport.ts';

/** The billing view: wallet, dev allowance, prices, auto top-up, subscriptions, the last ledger entries. */
export type BillingView = CapabilityOutput<'billing.view'>;
/** One month's fee statement. */
export type Statement = CapabilityOutput<'billing.statements'>[number];
export type SavingsLedger = CapabilityOutput<'billing.savingsLedger'>;
/** A hosted checkout page: open `url` to pay. */
export type Checkout = CapabilityOutput<'billing.topup'>;
export type AutoTopup = CapabilityOutput<'billing.setAutoTopup'>;
export type Estimate = CapabilityOutput<'billing.estimate'>;
/** A month range, `YYYY-MM-DD` (default: this month). */
export type MonthRange = NonNullable<CapabilityInput<'billing.statements'>>;

export class Billing {
  readonly #t: Transport;

  constructor(t: Transport) {
    this.#t = t;
  }

  /** Wallet, dev allowance, prices, auto top-up, subscriptions and the last 50 ledger entries (USD). */
  view(opts?: CallOptions): Promise<BillingView> {
    return callCapability(this.#t, 'billing.view', undefined, opts);
  }

  /** A fee statement per month from `from`'s to `to`'s, newest first. */
  statements(range: MonthRange = {}, opts?: CallOptions): Promise<Statement[]> {
    return callCapability(this.#t, 'billing.statements', range, opts);
  }

  /** Per month, oldest first: what the calls saved by source, the fee taken from it, what was kept, running totals. */
  savingsLedger(range: MonthRange = {}, opts?: CallOptions): Promise<SavingsLedger> {
    return callCapability(this.#t, 'billing.savingsLedger', range, opts);
  }

  /** A hosted checkout page that tops the wallet up by `amount_usd` once paid (the wallet is credited by the payment's webhook). */
  topup(input: CapabilityInput<'billing.topup'>, opts?: CallOptions): Promise<Checkout> {
    return callCapability(this.#t, 'billing.topup', input, opts);
  }

  /** Sets auto top-up: below `threshold_usd`, charge `amount_usd` once to the saved card; both null turns it off. */
  setAutoTopup(input: CapabilityInput<'billing.setAutoTopup'>, opts?: CallOptions): Promise<AutoTopup> {
    return callCapability(this.#t, 'billing.setAutoTopup', input, opts);
  }

  /** Projects the saving on a monthly spend, for a prospect: needs no key. */
  estimate(input: CapabilityInput<'billing.estimate'>, opts?: CallOptions): Promise<Estimate> {
    return callCapability(this.#t, 'billing.estimate', input, opts);
  }
}
