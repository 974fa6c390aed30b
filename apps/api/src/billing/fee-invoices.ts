// The fee is billed (issue 35): when a billing period (a calendar month, UTC) has ended, what
// paid production's calls owe as fee (fee_rate × their saving, per call, the calls marked
// `fee_invoiced`) becomes one line of a Stripe invoice, usage-based, and is paid from the card
// on file, else from the wallet (the invoice then marked paid out of band, the wallet debited
// in the ledger). The statement shows what was invoiced and paid.
//
// A period closes once across replicas: the `fee_invoices` row (account, period) is inserted by
// exactly one closer, which alone talks to Stripe, each request under an idempotency key named
// after the account and period; a closer that died mid-way is finished by the sweep with the
// same keys, so a retry is the same invoice, line and payment. Sub-cent remainders are not
// invoiced (Stripe bills whole cents; docs/decisions.md). A line under Stripe's minimum charge
// (0.50 USD) is not invoiced: the period is `carried` and its fee joins the next period's line,
// invoiced once the sum reaches the minimum.
import Stripe from 'stripe';
import type { Database } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import { usd } from '../wire/usage.ts';
import type { Budget } from './budget.ts';
import { periodBounds, periodOf } from './month.ts';
import { debitWallet } from './wallet-debit.ts';
import { sqlIn } from '../db/sql-in.ts';

const MICROS_PER_CENT = 10_000;
/** Stripe's minimum charge in USD cents: a card is not charged less (amount_too_small). */
export const MIN_CHARGE_CENTS = 50;

export interface FeeInvoiceRow {
  account_id: string;
  period: string;
  status: 'closing' | 'nothing_due' | 'carried' | 'open' | 'paid';
  fee_micros: string;
  carried_in_micros: string;
  carried_to: string | null;
  line_cents: string;
  stripe_invoice_id: string | null;
  paid_cents: string;
  paid_from: 'card' | 'wallet' | null;
  failure: string | null;
}

/** How a statement shows its period's invoice. */
export function invoiceView(r: FeeInvoiceRow | undefined) {
  if (!r) return null;
  return {
    id: r.stripe_invoice_id,
    status: r.status,
    fee_usd: usd(Number(r.fee_micros)),
    carried_in_usd: usd(Number(r.carried_in_micros)),
    carried_to: r.carried_to,
    line_usd: Number(r.line_cents) / 100,
    paid_usd: Number(r.paid_cents) / 100,
    paid_from: r.paid_from,
    failure: r.failure,
  };
}

/** The fee of a period's calls that goes on its invoice, micro-dollars. */
export async function invoicedFee(db: Database, accountId: string, period: string): Promise<number> {
  const { start, end } = periodBounds(period);
  const [row] = (await db
    .em()
    .getConnection()
    .execute(
      `select coalesce(sum((detail->'billing'->>'fee_micros')::bigint), 0)::text as fee from call_records
        where account_id = ? and created_at >= ? and created_at < ? and detail->'billing'->>'fee_invoiced' = '1'`,
      [accountId, start.toISOString(), end.toISOString()],
    )) as { fee: string }[];
  return Number(row?.fee ?? 0);
}

export class FeeInvoices {
  readonly #db: Database;
  readonly #stripe: () => Stripe | null;
  readonly #budget: Budget;
  readonly #logger: Logger;
  readonly #feeRate: number;
  #timer: NodeJS.Timeout | null = null;

  constructor(deps: { db: Database; stripe: () => Stripe | null; budget: Budget; logger: Logger; feeRate: number }) {
    this.#db = deps.db;
    this.#stripe = deps.stripe;
    this.#budget = deps.budget;
    this.#logger = deps.logger;
    this.#feeRate = deps.feeRate;
  }

  #sql<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.#db.em().getConnection().execute(sql, params) as Promise<T[]>;
  }

  start(sweepMs: number): void {
    this.#timer = setInterval(() => void this.sweep().catch((err: unknown) => this.#logger.warn({ err }, 'fee invoice sweep failed')), sweepMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
  }

  async row(accountId: string, period: string): Promise<FeeInvoiceRow | undefined> {
    const [r] = await this.#sql<FeeInvoiceRow>('select * from fee_invoices where account_id = ? and period = ?', [accountId, period]);
    return r;
  }

  /**
   * Closes an ended period's fee for the account: invoiced and paid by the one replica whose
   * insert wins; the others (and any later close) answer the row as it stands. With the fee of
   * earlier carried periods, a line under the minimum charge is carried on, not invoiced; one that
   * reaches it takes the carried periods (each marked with this period).
   */
  async close(accountId: string, period: string): Promise<FeeInvoiceRow | undefined> {
    if (periodBounds(period).end.getTime() > Date.now()) return undefined; // not ended
    const fee = await invoicedFee(this.#db, accountId, period);
    const won = await this.#db.em().transactional(async (em) => {
      const run = sqlIn(em);
      await run('select 1 from accounts where id = ? for update', [accountId]); // an account's periods close one at a time (the carry)
      const open = `account_id = ? and period < ? and status = 'carried' and carried_to is null`;
      const [carried] = await run<{ micros: string }>(`select coalesce(sum(fee_micros), 0)::text as micros from fee_invoices where ${open}`, [accountId, period]);
      const carriedIn = Number(carried?.micros ?? 0);
      const cents = Math.floor((fee + carriedIn) / MICROS_PER_CENT);
      const status = cents >= MIN_CHARGE_CENTS ? 'closing' : fee + carriedIn > 0 ? 'carried' : 'nothing_due';
      const [row] = await run<FeeInvoiceRow>(
        `insert into fee_invoices (account_id, period, status, fee_micros, line_cents, carried_in_micros) values (?, ?, ?, ?, ?, ?) on conflict (account_id, period) do nothing returning *`,
        [accountId, period, status, fee, status === 'closing' ? cents : 0, carriedIn],
      );
      if (row && status === 'closing' && carriedIn > 0) await run(`update fee_invoices set carried_to = ?, updated_at = now() where ${open}`, [period, accountId, period]);
      return row;
    });
    if (won?.status === 'closing') await this.#bill(won);
    return this.row(accountId, period);
  }

  /** Invoice, line, finalization and payment, each under its own idempotency key (a retry is the same one). */
  async #bill(r: FeeInvoiceRow): Promise<void> {
    const stripe = this.#stripe();
    const [profile] = await this.#sql<{ stripe_customer_id: string | null; payment_method_id: string | null }>('select stripe_customer_id, payment_method_id from billing_profiles where account_id = ?', [r.account_id]);
    if (!stripe || !profile?.stripe_customer_id) {
      await this.#sql(`update fee_invoices set failure = ?, updated_at = now() where account_id = ? and period = ?`, ['no payment processor or customer to invoice', r.account_id, r.period]);
      return;
    }
    const key = `fee:${r.account_id}:${r.period}`;
    const { start, end } = periodBounds(r.period);
    const meta = { kind: 'fee', account_id: r.account_id, period: r.period };
    const invoice = await stripe.invoices.create(
      { customer: profile.stripe_customer_id, collection_method: 'charge_automatically', auto_advance: false, pending_invoice_items_behavior: 'exclude', description: `Optimizer fee, ${r.period}`, metadata: meta },
      { idempotencyKey: `${key}:invoice` },
    );
    await this.#sql(`update fee_invoices set stripe_invoice_id = ?, updated_at = now() where account_id = ? and period = ?`, [invoice.id, r.account_id, r.period]);
    if (invoice.status === 'draft') {
      await stripe.invoiceItems.create(
        {
          customer: profile.stripe_customer_id,
          invoice: invoice.id,
          currency: 'usd',
          amount: Number(r.line_cents),
          description: `Fee: ${Math.round(this.#feeRate * 1000) / 10}% of what paid production saved in ${r.period}${Number(r.carried_in_micros) > 0 ? `, with ${usd(Number(r.carried_in_micros))} USD carried from earlier months under the minimum charge` : ''}`,
          period: { start: Math.floor(start.getTime() / 1000), end: Math.floor(end.getTime() / 1000) },
          metadata: { ...meta, fee_micros: r.fee_micros, carried_in_micros: r.carried_in_micros },
        },
        { idempotencyKey: `${key}:line` },
      );
      await stripe.invoices.finalizeInvoice(invoice.id, { auto_advance: false }, { idempotencyKey: `${key}:finalize` });
    }
    const paid = await this.#pay(stripe, r, invoice.id, profile.payment_method_id, key);
    await this.#sql(`update fee_invoices set status = ?, paid_cents = ?, paid_from = ?, failure = ?, updated_at = now() where account_id = ? and period = ? and status <> 'paid'`, [
      paid.from ? 'paid' : 'open',
      paid.from ? r.line_cents : 0,
      paid.from,
      paid.failure,
      r.account_id,
      r.period,
    ]);
  }

  /** The card on file first; declined or none, the wallet when it covers the line. */
  async #pay(stripe: Stripe, r: FeeInvoiceRow, invoiceId: string, card: string | null, key: string): Promise<{ from: 'card' | 'wallet' | null; failure: string | null }> {
    let failure: string | null = null;
    const current = await stripe.invoices.retrieve(invoiceId);
    if (current.status === 'paid') return { from: current.amount_paid_off_stripe ? 'wallet' : 'card', failure: null };
    if (card) {
      try {
        await stripe.invoices.pay(invoiceId, { payment_method: card, off_session: true }, { idempotencyKey: `${key}:card` });
        return { from: 'card', failure: null };
      } catch (err) {
        if (!(err instanceof Stripe.errors.StripeCardError)) throw err;
        failure = `card declined (${[err.code, err.decline_code].filter(Boolean).join(', ')}): ${err.message}`;
      }
    } else failure = 'no card on file';
    const micros = Number(r.line_cents) * MICROS_PER_CENT;
    if (!(await this.#debitWallet(r, micros))) return { from: null, failure: `${failure}; the wallet does not cover ${usd(micros)} USD` };
    await stripe.invoices.pay(invoiceId, { paid_out_of_band: true }, { idempotencyKey: `${key}:wallet` });
    return { from: 'wallet', failure };
  }

  /** The line taken from the wallet, once (the transaction is keyed by account and period), if the wallet covers it. */
  async #debitWallet(r: FeeInvoiceRow, micros: number): Promise<boolean> {
    const debited = await this.#db.em().transactional((em) => debitWallet(em, { accountId: r.account_id, txn: `fee_invoice:${r.account_id}:${r.period}`, micros, kind: 'fee_invoice', ref: r.period }));
    if (debited === 'new') await this.#budget.credited(r.account_id, -micros);
    return debited !== false;
  }

  /** A fee invoice's webhook: paid (e.g. a card payment Stripe settled later) is recorded; the event id once. */
  async applyEvent(event: Stripe.Event): Promise<boolean> {
    if (!event.type.startsWith('invoice.')) return false;
    const inv = event.data.object as Stripe.Invoice;
    if (inv.metadata?.kind !== 'fee') return false;
    await this.#sql(
      `with ev as (insert into stripe_events (id, type, account_id, created) values (?, ?, ?, to_timestamp(?)) on conflict (id) do nothing returning id)
       update fee_invoices set status = 'paid', paid_cents = ?, paid_from = coalesce(paid_from, case when ? > 0 then 'wallet' else 'card' end), updated_at = now()
        where stripe_invoice_id = ? and status <> 'paid' and ? and exists (select 1 from ev)`,
      [event.id, event.type, inv.metadata.account_id ?? null, event.created, inv.amount_paid, inv.amount_paid_off_stripe ?? 0, inv.id, event.type === 'invoice.paid'],
    );
    return true;
  }

  /**
   * Closes last period for every account that had paid production (once each, across replicas),
   * and finishes a close that died mid-way (a row left `closing` for two minutes).
   */
  async sweep(): Promise<void> {
    const last = periodOf(new Date(periodBounds(periodOf(new Date())).start.getTime() - 1));
    const due = await this.#sql<{ account_id: string }>(
      `select distinct s.account_id from subscriptions s where s.stripe_subscription_id is not null
         and not exists (select 1 from fee_invoices f where f.account_id = s.account_id and f.period = ?)`,
      [last],
    );
    for (const d of due) await this.close(d.account_id, last);
    const stuck = await this.#sql<FeeInvoiceRow>(`select * from fee_invoices where status = 'closing' and updated_at < now() - interval '2 minutes'`);
    for (const r of stuck) await this.#bill(r);
  }
}
