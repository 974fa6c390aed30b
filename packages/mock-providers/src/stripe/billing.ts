// Stripe Billing in the fake: customers, prices, subscriptions, invoices and invoice items, in
// Stripe's wire shapes (API 2025+: a subscription's period is on its items, an invoice names its
// subscription under `parent.subscription_details` and its payments under `payments`). Payments
// are PaymentIntents against the card the request names, else the subscription's, else the
// customer's default; a card in `declined` fails as Stripe fails it (402 card_error, an invoice
// left open with `invoice.payment_failed`). Time does not pass on its own: a test ends a period
// with `cycle` (a renewal invoice, or the end of a subscription set to cancel) and runs the
// dunning's next attempt with `retry`, the way Stripe's test clocks and Smart Retries would.
import { randomBytes } from 'node:crypto';

/** The least Stripe charges a card in USD, in cents: less is refused with amount_too_small. */
export const MIN_CHARGE_CENTS = 50;

export type Obj = Record<string, any>;
export const newId = (prefix: string) => `${prefix}_test_${randomBytes(12).toString('hex')}`;
export const now = () => Math.floor(Date.now() / 1000);

/** A request error Stripe would answer: status, error type, message, param and code. */
export class StripeFault extends Error {
  readonly status: number;
  readonly type: string;
  readonly param: string | undefined;
  readonly extra: Obj;
  constructor(status: number, type: string, message: string, param?: string, extra: Obj = {}) {
    super(message);
    this.status = status;
    this.type = type;
    this.param = param;
    this.extra = extra;
  }
}

const monthAfter = (t: number) => {
  const d = new Date(t * 1000);
  d.setUTCMonth(d.getUTCMonth() + 1);
  return Math.floor(d.getTime() / 1000);
};
const list = (data: Obj[], url: string) => ({ object: 'list', data, has_more: false, total_count: data.length, url });
const bool = (v: unknown) => v === true || v === 'true';
const intParam = (v: unknown, param: string): number => {
  const n = Number(v);
  if (v === undefined || !Number.isInteger(n)) throw new StripeFault(400, 'invalid_request_error', `Invalid integer: ${String(v)}`, param);
  return n;
};

export interface BillingHooks {
  /** Records an event (and delivers it when the fake delivers on its own). */
  event(type: string, object: Obj, previous?: Obj): void;
  /** A charge: a PaymentIntent for the amount on the card, succeeded or declined. */
  charge(a: { customer: string; paymentMethod: string; amount: number; currency: string; description: string; metadata: Obj }): Obj;
}

export class StripeBilling {
  readonly customers = new Map<string, Obj>();
  readonly prices = new Map<string, Obj>();
  readonly subscriptions = new Map<string, Obj>();
  readonly invoices = new Map<string, Obj>();
  readonly invoiceItems = new Map<string, Obj>();

  readonly hooks: BillingHooks;
  constructor(hooks: BillingHooks) {
    this.hooks = hooks;
  }

  /** A customer checkout created, with its saved card as the default for invoices (as the top-up's `setup_future_usage` leaves it). */
  ensureCustomer(id: string, paymentMethod: string | null): Obj {
    let c = this.customers.get(id);
    if (!c) {
      c = { id, object: 'customer', created: now(), email: null, name: null, description: null, metadata: {}, balance: 0, currency: 'usd', delinquent: false, livemode: false, invoice_settings: { default_payment_method: null, custom_fields: null, footer: null, rendering_options: null } };
      this.customers.set(id, c);
    }
    if (paymentMethod && !c.invoice_settings.default_payment_method) c.invoice_settings.default_payment_method = paymentMethod;
    return c;
  }

  #customer(id: unknown): Obj {
    const c = this.customers.get(String(id));
    if (!c) throw new StripeFault(400, 'invalid_request_error', `No such customer: '${String(id)}'`, 'customer', { code: 'resource_missing' });
    return c;
  }

  createCustomer(b: Obj): Obj {
    const c = this.ensureCustomer(newId('cus'), null);
    Object.assign(c, { email: b.email ?? null, name: b.name ?? null, metadata: b.metadata ?? {} });
    if (b.invoice_settings?.default_payment_method) c.invoice_settings.default_payment_method = b.invoice_settings.default_payment_method;
    this.hooks.event('customer.created', c);
    return c;
  }

  updateCustomer(id: string, b: Obj): Obj {
    const c = this.#customer(id);
    if (b.invoice_settings?.default_payment_method !== undefined) c.invoice_settings.default_payment_method = b.invoice_settings.default_payment_method || null;
    if (b.metadata) c.metadata = { ...c.metadata, ...b.metadata };
    if (b.email !== undefined) c.email = b.email;
    this.hooks.event('customer.updated', c);
    return c;
  }

  getCustomer(id: string): Obj {
    return this.#customer(id);
  }

  createPrice(b: Obj): Obj {
    const amount = intParam(b.unit_amount, 'unit_amount');
    if (!b.currency) throw new StripeFault(400, 'invalid_request_error', 'Missing required param: currency.', 'currency');
    if (!b.product && !b.product_data?.name) throw new StripeFault(400, 'invalid_request_error', 'Missing required param: product.', 'product');
    if (b.lookup_key) {
      const holder = [...this.prices.values()].find((p) => p.lookup_key === b.lookup_key);
      if (holder && !bool(b.transfer_lookup_key)) throw new StripeFault(400, 'invalid_request_error', `A price (\`${holder.id}\`) already uses that lookup key.`, 'lookup_key', { code: 'lookup_key_already_exists' });
      if (holder) holder.lookup_key = null;
    }
    const recurring = b.recurring ? { interval: b.recurring.interval ?? 'month', interval_count: Number(b.recurring.interval_count ?? 1), usage_type: b.recurring.usage_type ?? 'licensed', meter: null, trial_period_days: null } : null;
    const p = { id: newId('price'), object: 'price', active: true, billing_scheme: 'per_unit', created: now(), currency: b.currency, livemode: false, lookup_key: b.lookup_key ?? null, metadata: b.metadata ?? {}, nickname: b.nickname ?? null, product: b.product ?? newId('prod'), recurring, tax_behavior: 'unspecified', type: recurring ? 'recurring' : 'one_time', unit_amount: amount, unit_amount_decimal: String(amount) };
    this.prices.set(p.id, p);
    return p;
  }

  listPrices(q: Obj): Obj {
    const keys: string[] | null = Array.isArray(q.lookup_keys) ? q.lookup_keys : q.lookup_keys ? Object.values(q.lookup_keys) : null;
    const data = [...this.prices.values()].filter((p) => (keys ? keys.includes(p.lookup_key) : true) && (q.active === undefined || p.active === bool(q.active)));
    return list(data, '/v1/prices');
  }

  /** The card a payment uses: the one named, the invoice's, the subscription's, or the customer's default. */
  #card(inv: Obj, named?: unknown): string | null {
    const sub = inv.parent?.subscription_details ? this.subscriptions.get(inv.parent.subscription_details.subscription) : null;
    return (named as string | undefined) || inv.default_payment_method || sub?.default_payment_method || this.customers.get(inv.customer)?.invoice_settings.default_payment_method || null;
  }

  #invoice(a: { customer: string; sub: Obj | null; reason: string; start: number; end: number; metadata: Obj; description?: string | null }): Obj {
    const inv: Obj = {
      id: newId('in'),
      object: 'invoice',
      customer: a.customer,
      status: 'draft',
      amount_due: 0,
      amount_paid: 0,
      amount_paid_off_stripe: 0,
      amount_remaining: 0,
      amount_overpaid: 0,
      attempt_count: 0,
      attempted: false,
      auto_advance: true,
      billing_reason: a.reason,
      collection_method: 'charge_automatically',
      created: now(),
      currency: 'usd',
      default_payment_method: null,
      description: a.description ?? null,
      lines: list([], ''),
      livemode: false,
      metadata: a.metadata,
      next_payment_attempt: null,
      number: null,
      parent: a.sub ? { type: 'subscription_details', quote_details: null, subscription_details: { metadata: a.sub.metadata, subscription: a.sub.id } } : null,
      payments: list([], ''),
      period_start: a.start,
      period_end: a.end,
      starting_balance: 0,
      ending_balance: null,
      status_transitions: { finalized_at: null, paid_at: null, marked_uncollectible_at: null, voided_at: null },
      subtotal: 0,
      total: 0,
    };
    inv.lines.url = `/v1/invoices/${inv.id}/lines`;
    inv.payments.url = `/v1/invoices/${inv.id}/payments`;
    this.invoices.set(inv.id, inv);
    return inv;
  }

  #addLine(inv: Obj, line: Obj): void {
    inv.lines.data.push({ id: newId('il'), object: 'line_item', currency: inv.currency, invoice: inv.id, livemode: false, discountable: true, discounts: [], ...line });
    inv.lines.total_count = inv.lines.data.length;
    const total = inv.lines.data.reduce((n: number, l: Obj) => n + Number(l.amount), 0);
    Object.assign(inv, { subtotal: total, total, amount_due: total, amount_remaining: total - inv.amount_paid });
  }

  #finalize(inv: Obj): void {
    if (inv.status !== 'draft') throw new StripeFault(400, 'invalid_request_error', `This invoice is already ${inv.status}.`, undefined, { code: 'invoice_not_editable' });
    inv.status = 'open';
    inv.number = `TEST-${String(this.invoices.size).padStart(4, '0')}`;
    inv.status_transitions.finalized_at = now();
    this.hooks.event('invoice.finalized', inv);
    if (inv.amount_due === 0) this.#markPaid(inv, 0, null); // Stripe pays a zero invoice on finalization
  }

  #markPaid(inv: Obj, amount: number, pi: Obj | null, offStripe = false): void {
    Object.assign(inv, { status: 'paid', amount_paid: inv.amount_due, amount_remaining: 0, next_payment_attempt: null, ending_balance: 0 });
    if (offStripe) inv.amount_paid_off_stripe = inv.amount_due;
    inv.status_transitions.paid_at = now();
    if (pi) inv.payments.data.push({ id: newId('inpay'), object: 'invoice_payment', amount_paid: amount, amount_requested: amount, currency: inv.currency, invoice: inv.id, is_default: true, livemode: false, payment: { type: 'payment_intent', payment_intent: pi.id }, status: 'paid', created: now(), status_transitions: { canceled_at: null, paid_at: now() } });
    inv.payments.total_count = inv.payments.data.length;
    this.hooks.event('invoice.paid', inv);
    this.hooks.event('invoice.payment_succeeded', inv);
  }

  /** One payment attempt on an open invoice; true when paid. A subscription follows its invoice (active, or past due). */
  #attempt(inv: Obj, named?: unknown): boolean {
    const card = this.#card(inv, named);
    if (!card) throw new StripeFault(400, 'invalid_request_error', 'This customer has no attached payment source or default payment method.', undefined, { code: 'invoice_no_payment_method_types' });
    // Stripe's minimum charge: a card is not charged less than $0.50
    if (inv.amount_due > 0 && inv.amount_due < MIN_CHARGE_CENTS) throw new StripeFault(400, 'invalid_request_error', 'Amount must be at least $0.50 usd', 'amount', { code: 'amount_too_small' });
    inv.attempt_count += 1;
    inv.attempted = true;
    const pi = this.hooks.charge({ customer: inv.customer, paymentMethod: card, amount: inv.amount_due, currency: inv.currency, description: `Invoice ${inv.number}`, metadata: {} });
    const sub = inv.parent?.subscription_details ? this.subscriptions.get(inv.parent.subscription_details.subscription) : null;
    if (pi.status === 'succeeded') {
      this.#markPaid(inv, inv.amount_due, pi);
      if (sub && (sub.status === 'past_due' || sub.status === 'unpaid')) this.#setSub(sub, { status: 'active' });
      return true;
    }
    inv.payments.data.push({ id: newId('inpay'), object: 'invoice_payment', amount_paid: null, amount_requested: inv.amount_due, currency: inv.currency, invoice: inv.id, is_default: true, livemode: false, payment: { type: 'payment_intent', payment_intent: pi.id }, status: 'open', created: now(), status_transitions: { canceled_at: null, paid_at: null } });
    inv.next_payment_attempt = now() + 3 * 24 * 3600;
    this.hooks.event('invoice.payment_failed', inv);
    if (sub && sub.status === 'active') this.#setSub(sub, { status: 'past_due' });
    return false;
  }

  #setSub(sub: Obj, change: Obj): void {
    const previous: Obj = {};
    for (const k of Object.keys(change)) previous[k] = structuredClone(sub[k]);
    Object.assign(sub, change);
    this.hooks.event('customer.subscription.updated', sub, previous);
  }

  #declineFault(inv: Obj): StripeFault {
    const pi = inv.payments.data.at(-1)?.payment?.payment_intent;
    return new StripeFault(402, 'card_error', 'Your card has insufficient funds.', '', { code: 'card_declined', decline_code: 'insufficient_funds', payment_intent: pi ? { id: pi, object: 'payment_intent' } : undefined });
  }

  createSubscription(b: Obj): Obj {
    const customer = this.#customer(b.customer);
    const items = (b.items as Obj[] | undefined) ?? [];
    if (items.length === 0) throw new StripeFault(400, 'invalid_request_error', 'Missing required param: items.', 'items');
    const start = now();
    const end = monthAfter(start);
    const sub: Obj = {
      id: newId('sub'),
      object: 'subscription',
      billing_cycle_anchor: start,
      cancel_at: null,
      cancel_at_period_end: false,
      canceled_at: null,
      cancellation_details: { comment: null, feedback: null, reason: null },
      collection_method: 'charge_automatically',
      created: start,
      currency: 'usd',
      customer: customer.id,
      default_payment_method: b.default_payment_method ?? null,
      description: b.description ?? null,
      ended_at: null,
      items: list([], ''),
      latest_invoice: null,
      livemode: false,
      metadata: b.metadata ?? {},
      pause_collection: null,
      start_date: start,
      status: 'incomplete',
      test_clock: null,
      trial_end: null,
      trial_start: null,
    };
    sub.items.url = `/v1/subscription_items?subscription=${sub.id}`;
    for (const it of items) {
      const price = this.prices.get(String(it.price));
      if (!price) throw new StripeFault(400, 'invalid_request_error', `No such price: '${String(it.price)}'`, 'items[0][price]', { code: 'resource_missing' });
      sub.items.data.push({ id: newId('si'), object: 'subscription_item', created: start, current_period_start: start, current_period_end: end, metadata: {}, price, quantity: Number(it.quantity ?? 1), subscription: sub.id });
    }
    sub.items.total_count = sub.items.data.length;
    const inv = this.#invoice({ customer: customer.id, sub, reason: 'subscription_create', start, end, metadata: {} });
    this.#linesFor(sub, inv);
    sub.latest_invoice = inv.id;
    const behavior = b.payment_behavior ?? 'allow_incomplete';
    this.subscriptions.set(sub.id, sub);
    this.hooks.event('invoice.created', inv);
    this.#finalize(inv);
    if (inv.status !== 'paid' && behavior !== 'default_incomplete') {
      const paid = this.#attempt(inv);
      if (!paid && behavior === 'error_if_incomplete') {
        this.invoices.delete(inv.id); // the subscription is not created
        this.subscriptions.delete(sub.id);
        throw this.#declineFault(inv);
      }
    }
    if (inv.status === 'paid') sub.status = 'active';
    this.hooks.event('customer.subscription.created', sub);
    return sub;
  }

  #linesFor(sub: Obj, inv: Obj): void {
    for (const si of sub.items.data) {
      this.#addLine(inv, {
        amount: si.price.unit_amount * si.quantity,
        description: `${si.quantity} × ${String(si.price.nickname ?? si.price.product)} (at $${(si.price.unit_amount / 100).toFixed(2)} / ${si.price.recurring?.interval ?? 'month'})`,
        metadata: {},
        period: { start: inv.period_start, end: inv.period_end },
        quantity: si.quantity,
        parent: { type: 'subscription_item_details', invoice_item_details: null, subscription_item_details: { invoice_item: null, proration: false, subscription: sub.id, subscription_item: si.id } },
        pricing: { type: 'price_details', price_details: { price: si.price.id, product: si.price.product }, unit_amount_decimal: String(si.price.unit_amount) },
      });
    }
  }

  getSubscription(id: string): Obj {
    const sub = this.subscriptions.get(id);
    if (!sub) throw new StripeFault(404, 'invalid_request_error', `No such subscription: '${id}'`, 'id', { code: 'resource_missing' });
    return sub;
  }

  updateSubscription(id: string, b: Obj): Obj {
    const sub = this.getSubscription(id);
    if (sub.status === 'canceled') throw new StripeFault(400, 'invalid_request_error', 'A canceled subscription can only update its cancellation_details and metadata.', undefined, { code: 'resource_missing' });
    const change: Obj = {};
    if (b.cancel_at_period_end !== undefined) {
      change.cancel_at_period_end = bool(b.cancel_at_period_end);
      change.cancel_at = change.cancel_at_period_end ? sub.items.data[0].current_period_end : null;
      change.canceled_at = change.cancel_at_period_end ? now() : null;
    }
    if (b.default_payment_method !== undefined) change.default_payment_method = b.default_payment_method || null;
    if (b.metadata) change.metadata = { ...sub.metadata, ...b.metadata };
    this.#setSub(sub, change);
    return sub;
  }

  cancelSubscription(id: string): Obj {
    const sub = this.getSubscription(id);
    Object.assign(sub, { status: 'canceled', canceled_at: sub.canceled_at ?? now(), ended_at: now() });
    this.hooks.event('customer.subscription.deleted', sub);
    return sub;
  }

  /** The period ends: a subscription set to cancel ends; another renews, billing the next period on its card. */
  cycle(id: string): Obj {
    const sub = this.getSubscription(id);
    if (sub.status === 'canceled') throw new Error(`subscription ${id} has ended`);
    if (sub.cancel_at_period_end) return this.cancelSubscription(id);
    const start = sub.items.data[0].current_period_end as number;
    const end = monthAfter(start);
    for (const si of sub.items.data) Object.assign(si, { current_period_start: start, current_period_end: end });
    const inv = this.#invoice({ customer: sub.customer, sub, reason: 'subscription_cycle', start, end, metadata: {} });
    this.#linesFor(sub, inv);
    this.#setSub(sub, { latest_invoice: inv.id });
    this.hooks.event('invoice.created', inv);
    this.#finalize(inv);
    if (inv.status !== 'paid') this.#attempt(inv);
    return inv;
  }

  /** The dunning's next automatic attempt on an open invoice. */
  retry(invoiceId: string): Obj {
    const inv = this.getInvoice(invoiceId);
    if (inv.status !== 'open') throw new Error(`invoice ${invoiceId} is ${inv.status}`);
    this.#attempt(inv);
    return inv;
  }

  createInvoice(b: Obj): Obj {
    const customer = this.#customer(b.customer);
    const inv = this.#invoice({ customer: customer.id, sub: null, reason: 'manual', start: now(), end: now(), metadata: b.metadata ?? {}, description: b.description ?? null });
    inv.auto_advance = b.auto_advance === undefined ? false : bool(b.auto_advance);
    inv.default_payment_method = b.default_payment_method ?? null;
    if (b.collection_method === 'send_invoice') inv.collection_method = 'send_invoice';
    if ((b.pending_invoice_items_behavior ?? 'exclude') === 'include') {
      for (const item of this.invoiceItems.values()) if (item.customer === customer.id && item.invoice === null) this.#attach(item, inv);
    }
    this.hooks.event('invoice.created', inv);
    return inv;
  }

  #attach(item: Obj, inv: Obj): void {
    item.invoice = inv.id;
    this.#addLine(inv, {
      amount: item.amount,
      description: item.description,
      metadata: item.metadata,
      period: item.period,
      quantity: item.quantity,
      parent: { type: 'invoice_item_details', invoice_item_details: { invoice_item: item.id, proration: false, subscription: null }, subscription_item_details: null },
      pricing: { type: 'price_details', price_details: null, unit_amount_decimal: item.unit_amount_decimal },
    });
  }

  createInvoiceItem(b: Obj): Obj {
    const customer = this.#customer(b.customer);
    const quantity = b.quantity === undefined ? 1 : intParam(b.quantity, 'quantity');
    const amount = b.amount !== undefined ? intParam(b.amount, 'amount') : Math.round(quantity * Number(b.unit_amount_decimal ?? NaN));
    if (!Number.isInteger(amount)) throw new StripeFault(400, 'invalid_request_error', 'Either amount or unit_amount_decimal is required.', 'amount');
    const inv = b.invoice ? this.getInvoice(String(b.invoice)) : null;
    if (inv && inv.status !== 'draft') throw new StripeFault(400, 'invalid_request_error', 'You can only add invoice items to draft invoices.', 'invoice', { code: 'invoice_not_editable' });
    const period = b.period ? { start: intParam(b.period.start, 'period[start]'), end: intParam(b.period.end, 'period[end]') } : { start: now(), end: now() };
    const item: Obj = { id: newId('ii'), object: 'invoiceitem', amount, currency: b.currency ?? 'usd', customer: customer.id, date: now(), description: b.description ?? null, discountable: true, invoice: null, livemode: false, metadata: b.metadata ?? {}, period, quantity, unit_amount_decimal: b.unit_amount_decimal ?? String(amount / quantity) };
    this.invoiceItems.set(item.id, item);
    if (inv) this.#attach(item, inv);
    return item;
  }

  getInvoice(id: string): Obj {
    const inv = this.invoices.get(id);
    if (!inv) throw new StripeFault(404, 'invalid_request_error', `No such invoice: '${id}'`, 'id', { code: 'resource_missing' });
    return inv;
  }

  finalizeInvoice(id: string): Obj {
    const inv = this.getInvoice(id);
    this.#finalize(inv);
    return inv;
  }

  payInvoice(id: string, b: Obj): Obj {
    const inv = this.getInvoice(id);
    if (inv.status === 'draft') this.#finalize(inv);
    if (inv.status === 'paid') throw new StripeFault(400, 'invalid_request_error', 'Invoice is already paid', undefined, { code: 'invoice_already_paid' });
    if (inv.status !== 'open') throw new StripeFault(400, 'invalid_request_error', `This invoice is ${inv.status} and cannot be paid.`, undefined, { code: 'invoice_not_open' });
    if (bool(b.paid_out_of_band)) {
      this.#markPaid(inv, 0, null, true);
      return inv;
    }
    if (!this.#attempt(inv, b.payment_method)) throw this.#declineFault(inv);
    return inv;
  }
}
