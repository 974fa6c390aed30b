// Money in through Stripe (design §11), with the official SDK: a hosted checkout session for a
// top-up, an off-session charge for auto top-up, and signed webhooks that credit the wallet.
// A webhook is verified against every configured secret (two during a rotation; Stripe then
// also signs with both, one `v1` each), within the tolerance. Crediting is exactly once: the
// event id is recorded and the ledger transaction is keyed by the payment (checkout session or
// payment intent), both in one statement, so a replay, a redelivery to another replica or a
// second event about the same payment credits nothing more; order does not matter, since only
// an event saying the payment is paid credits, and it carries the amount.
import Stripe from 'stripe';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { Budget } from './budget.ts';
import { transfer } from './ledger.ts';

/** Stripe amounts are cents; ours are micro-dollars. */
const MICROS_PER_CENT = 10_000;

/** What becomes of an auto top-up's payment, as its webhook tells (auto-topup.ts records it). */
export interface AutoTopupOutcome {
  attemptId: string;
  accountId: string;
  paymentIntentId: string;
  ok: boolean;
  reason: string;
}

export class Payments {
  readonly #stripe: Stripe | null;
  readonly #secrets: string[];
  readonly #config: Config;
  readonly #db: Database;
  readonly #budget: Budget;
  readonly #logger: Logger;
  #onAutoTopup: ((o: AutoTopupOutcome) => Promise<void>) | null = null;
  #onCredited: ((accountId: string) => void) | null = null;
  /** Who applies subscription and invoice events (subscriptions, fee invoices); true when one did. */
  #billing: ((event: Stripe.Event) => Promise<boolean>)[] = [];

  constructor(deps: { config: Config; db: Database; budget: Budget; logger: Logger }) {
    this.#config = deps.config;
    this.#db = deps.db;
    this.#budget = deps.budget;
    this.#logger = deps.logger;
    this.#secrets = (deps.config.STRIPE_WEBHOOK_SECRET ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    const key = deps.config.STRIPE_SECRET_KEY;
    if (!key) {
      this.#stripe = null;
      return;
    }
    const api = deps.config.STRIPE_API_URL ? new URL(deps.config.STRIPE_API_URL) : null;
    this.#stripe = new Stripe(key, {
      maxNetworkRetries: 2, // the SDK sends an idempotency key with each POST, so a retry never charges twice
      timeout: 20_000,
      telemetry: false,
      ...(api ? { host: api.hostname, port: api.port || (api.protocol === 'https:' ? 443 : 80), protocol: api.protocol === 'https:' ? 'https' : 'http' } : {}),
    });
  }

  /** The SDK client, or null when payments are not configured (subscriptions and fee invoices use it too). */
  get processor(): Stripe | null {
    return this.#stripe;
  }

  /** Subscription and invoice events go to these, in order, until one applies the event. */
  listenBilling(apply: (event: Stripe.Event) => Promise<boolean>): void {
    this.#billing.push(apply);
  }

  #client(): Stripe {
    if (!this.#stripe) throw new ApiError('payment_unavailable');
    return this.#stripe;
  }

  /** A hosted checkout page that tops the wallet up by `amountUsd` once paid (credited by the webhook). */
  async topup(accountId: string, amountUsd: number): Promise<{ url: string; id: string }> {
    const cents = Math.round(amountUsd * 100);
    const back = new URL('/app/billing', this.#config.PUBLIC_URL).toString();
    const session = await this.#client().checkout.sessions.create({
      mode: 'payment',
      client_reference_id: accountId,
      customer_creation: 'always',
      line_items: [{ quantity: 1, price_data: { currency: 'usd', unit_amount: cents, product_data: { name: 'Optimizer wallet top-up' } } }],
      payment_intent_data: { setup_future_usage: 'off_session', metadata: { account_id: accountId, kind: 'topup' } },
      metadata: { account_id: accountId, kind: 'topup' },
      success_url: `${back}?topup=done`,
      cancel_url: `${back}?topup=cancelled`,
    });
    if (!session.url) throw new ApiError('upstream_error', 'Stripe returned a checkout session without a URL.');
    return { url: session.url, id: session.id };
  }

  /** Where auto top-up outcomes from webhooks go, and who hears of money credited (a wallet back above a level re-arms). */
  listen(l: { autoTopup: (o: AutoTopupOutcome) => Promise<void>; credited: (accountId: string) => void }): void {
    this.#onAutoTopup = l.autoTopup;
    this.#onCredited = l.credited;
  }

  /**
   * One off-session charge against the saved card (PaymentIntent with confirm + off_session),
   * keyed by the attempt so a retry of the request never charges twice. The wallet is credited
   * by `payment_intent.succeeded`, never here. A decline answers 402 `card_error` at once.
   */
  async chargeOffSession(a: { accountId: string; attemptId: string; amountMicros: number; customer: string; paymentMethod: string }): Promise<{ ok: boolean; reason: string; paymentIntentId: string | null }> {
    if (!this.#stripe) return { ok: false, reason: 'payments are not configured on this gateway', paymentIntentId: null };
    try {
      const pi = await this.#stripe.paymentIntents.create(
        {
          amount: Math.round(a.amountMicros / MICROS_PER_CENT),
          currency: 'usd',
          customer: a.customer,
          payment_method: a.paymentMethod,
          off_session: true,
          confirm: true,
          description: 'Optimizer wallet auto top-up',
          metadata: { account_id: a.accountId, kind: 'auto_topup', auto_topup_id: a.attemptId },
        },
        { idempotencyKey: `auto_topup:${a.attemptId}` },
      );
      const failed = pi.status === 'canceled' || pi.status === 'requires_payment_method' || pi.status === 'requires_action';
      return { ok: !failed, reason: failed ? `the payment needs the customer (${pi.status})` : '', paymentIntentId: pi.id };
    } catch (err) {
      if (err instanceof Stripe.errors.StripeCardError) {
        const pi = (err.raw as { payment_intent?: { id?: string } }).payment_intent;
        return { ok: false, reason: `card declined (${[err.code ?? 'card_error', err.decline_code].filter(Boolean).join(', ')}): ${err.message}`, paymentIntentId: pi?.id ?? null };
      }
      const e = err as Error & { type?: string };
      return { ok: false, reason: `the payment processor did not take the charge (${e.type ?? e.name})`, paymentIntentId: null };
    }
  }

  /** Verifies a webhook's signature (any configured secret, within the tolerance) and applies its event once. */
  async webhook(payload: string | undefined, header: string | undefined): Promise<{ credited: boolean }> {
    const stripe = this.#client();
    if (payload === undefined || !header) throw new ApiError('invalid_signature', 'A webhook needs its raw JSON body and a Stripe-Signature header.');
    let event: Stripe.Event | null = null;
    for (const secret of this.#secrets) {
      try {
        event = stripe.webhooks.constructEvent(payload, header, secret, this.#config.STRIPE_WEBHOOK_TOLERANCE_S);
        break;
      } catch {
        // try the next secret (a rotation); none verifying is the answer below
      }
    }
    if (!event) throw new ApiError('invalid_signature', `The Stripe-Signature does not verify against the endpoint's secret, or its timestamp is more than ${this.#config.STRIPE_WEBHOOK_TOLERANCE_S} s old.`);
    return this.#apply(event);
  }

  async #apply(event: Stripe.Event): Promise<{ credited: boolean }> {
    for (const apply of this.#billing) if (await apply(event)) return { credited: false };
    const result = await this.#credit(event);
    await this.#after(event);
    return result;
  }

  /** What an applied event means beyond the credit: a checkout's card saved for auto top-up, an auto top-up's outcome. */
  async #after(event: Stripe.Event): Promise<void> {
    if (event.type === 'checkout.session.completed' || event.type === 'checkout.session.async_payment_succeeded') {
      const s = event.data.object;
      if (s.payment_status === 'paid' && s.metadata?.kind === 'topup' && s.metadata.account_id) await this.#saveCard(s.metadata.account_id, s);
      return;
    }
    if (event.type !== 'payment_intent.succeeded' && event.type !== 'payment_intent.payment_failed') return;
    const pi = event.data.object;
    if (pi.metadata?.kind !== 'auto_topup' || !pi.metadata.auto_topup_id || !pi.metadata.account_id || !this.#onAutoTopup) return;
    const ok = event.type === 'payment_intent.succeeded';
    const e = pi.last_payment_error;
    const reason = ok ? '' : `card declined (${[e?.code ?? 'payment_failed', e?.decline_code].filter(Boolean).join(', ')}): ${e?.message ?? 'the payment failed'}`;
    await this.#onAutoTopup({ attemptId: pi.metadata.auto_topup_id, accountId: pi.metadata.account_id, paymentIntentId: pi.id, ok, reason });
  }

  /** Keeps the customer and the card a paid checkout saved (setup_future_usage=off_session): auto top-up charges them. */
  async #saveCard(accountId: string, s: Stripe.Checkout.Session): Promise<void> {
    const customer = typeof s.customer === 'string' ? s.customer : (s.customer?.id ?? null);
    const piId = typeof s.payment_intent === 'string' ? s.payment_intent : (s.payment_intent?.id ?? null);
    if (!customer || !piId || !this.#stripe) return;
    try {
      const pi = await this.#stripe.paymentIntents.retrieve(piId);
      const pm = typeof pi.payment_method === 'string' ? pi.payment_method : (pi.payment_method?.id ?? null);
      if (!pm) return;
      await this.#db
        .em()
        .getConnection()
        .execute(
          `insert into billing_profiles (account_id, stripe_customer_id, payment_method_id) values (?, ?, ?)
             on conflict (account_id) do update set stripe_customer_id = excluded.stripe_customer_id, payment_method_id = excluded.payment_method_id, updated_at = now()`,
          [accountId, customer, pm],
        );
    } catch (err) {
      this.#logger.warn({ err, account: accountId }, "could not read a paid checkout's payment method; auto top-up has no saved card yet");
    }
  }

  async #credit(event: Stripe.Event): Promise<{ credited: boolean }> {
    const credit = creditOf(event);
    const sql = this.#db.em().getConnection();
    if (!credit) {
      await sql.execute('insert into stripe_events (id, type, created) values (?, ?, to_timestamp(?)) on conflict (id) do nothing', [event.id, event.type, event.created]);
      return { credited: false };
    }
    const [account] = (await sql.execute('select 1 from accounts where id = ?', [credit.accountId])) as unknown[];
    if (!account) {
      this.#logger.warn({ event: event.id }, 'a Stripe payment names an account that does not exist; not credited');
      await sql.execute('insert into stripe_events (id, type, created) values (?, ?, to_timestamp(?)) on conflict (id) do nothing', [event.id, event.type, event.created]);
      return { credited: false };
    }
    const rows = transfer({ txn: `topup:${credit.payment}`, accountId: credit.accountId, from: 'payments', to: 'wallet', amount: credit.micros, kind: 'topup', ref: event.id });
    // one statement: the event is recorded and the payment credited together, each at most once
    const [done] = (await sql.execute(
      `with ev as (insert into stripe_events (id, type, account_id, created) values (?, ?, ?, to_timestamp(?)) on conflict (id) do nothing returning id),
            led as (insert into ledger_entries select * from jsonb_populate_recordset(null::ledger_entries, ?::jsonb) where exists (select 1 from ev) on conflict (id) do nothing returning amount_micros)
       select count(*)::int as n from led`,
      [event.id, event.type, credit.accountId, event.created, JSON.stringify(rows)],
    )) as { n: number }[];
    const credited = (done?.n ?? 0) > 0;
    if (credited) {
      await this.#budget.credited(credit.accountId, credit.micros);
      this.#onCredited?.(credit.accountId);
    }
    return { credited };
  }
}

/** The wallet credit an event carries: a paid top-up checkout, or a succeeded auto top-up. */
function creditOf(event: Stripe.Event): { accountId: string; micros: number; payment: string } | null {
  if (event.type === 'checkout.session.completed' || event.type === 'checkout.session.async_payment_succeeded') {
    const s = event.data.object;
    if (s.payment_status !== 'paid' || s.metadata?.kind !== 'topup' || !s.metadata.account_id || !s.amount_total) return null;
    return { accountId: s.metadata.account_id, micros: s.amount_total * MICROS_PER_CENT, payment: s.id };
  }
  if (event.type === 'payment_intent.succeeded') {
    const pi = event.data.object;
    if (pi.metadata?.kind !== 'auto_topup' || !pi.metadata.account_id) return null;
    return { accountId: pi.metadata.account_id, micros: pi.amount_received * MICROS_PER_CENT, payment: pi.id };
  }
  return null;
}
