// The billing view (spec 2.7, 4.4): balances from the ledger, prices, auto top-up,
// subscriptions and the last 50 ledger entries of the tenant's books. Also support credits
// from the admin API.
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { Meter } from '../meter/meter.ts';
import { newId } from '../security/secrets.ts';
import { usd } from '../wire/usage.ts';
import type { Budget } from './budget.ts';
import { INSERT_LEDGER, transfer } from './ledger.ts';

/** Ledger entries the view returns (spec 8). */
export const LEDGER_ENTRIES_SHOWN = 50;

interface LedgerEntryRow {
  id: string;
  txn_id: string;
  book: string;
  amount_micros: string;
  kind: string;
  call_id: string | null;
  ref: string | null;
  created_at: Date | string;
}

export class BillingView {
  readonly #db: Database;
  readonly #meter: Meter;
  readonly #budget: Budget;
  readonly #config: Config;

  constructor(deps: { db: Database; meter: Meter; budget: Budget; config: Config }) {
    this.#db = deps.db;
    this.#meter = deps.meter;
    this.#budget = deps.budget;
    this.#config = deps.config;
  }

  #sql<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.#db.em().getConnection().execute(sql, params) as Promise<T[]>;
  }

  async view(accountId: string) {
    await this.#budget.grantAllowance(accountId);
    await this.#meter.flush(); // calls answered so far are charged in the view
    const balances = await this.#budget.balances(accountId);
    const [profile] = await this.#sql<{ auto_topup_threshold_micros: string | null; auto_topup_amount_micros: string | null; payment_method_id: string | null }>(
      'select auto_topup_threshold_micros, auto_topup_amount_micros, payment_method_id from billing_profiles where account_id = ?',
      [accountId],
    );
    const [attempt] = await this.#sql<{ status: string; amount_micros: string; created_at: Date | string; failure: string | null }>(
      'select status, amount_micros::text, created_at, failure from auto_topups where account_id = ? order by created_at desc, id desc limit 1',
      [accountId],
    );
    const subscriptions = await this.#sql<{ workflow_id: string; status: string; started_at: Date; current_period_end: Date; cancel_at_period_end: boolean; price_micros: string }>(
      'select workflow_id, status, started_at, current_period_end, cancel_at_period_end, price_micros from subscriptions where account_id = ? order by started_at',
      [accountId],
    );
    const entries = await this.#sql<LedgerEntryRow>(
      `select id, txn_id, book, amount_micros::text, kind, call_id, ref, created_at from ledger_entries
        where account_id = ? and book in ('wallet', 'dev_allowance') order by created_at desc, id desc limit ${LEDGER_ENTRIES_SHOWN}`,
      [accountId],
    );
    const threshold = profile?.auto_topup_threshold_micros;
    const amount = profile?.auto_topup_amount_micros;
    return {
      balances: { wallet_usd: usd(balances.wallet), dev_allowance_usd: usd(balances.allowance), wallet_micros: balances.wallet, dev_allowance_micros: balances.allowance },
      prices: {
        currency: 'usd',
        fee_rate: this.#config.BILLING_FEE_RATE,
        dev_allowance_usd: this.#config.BILLING_DEV_ALLOWANCE_USD,
        platform_keys: 'vendor list price of each call (the catalog in force at call time) plus the fee',
        own_keys: 'the fee only',
      },
      auto_topup:
        threshold != null && amount != null
          ? {
              threshold_usd: usd(Number(threshold)),
              amount_usd: usd(Number(amount)),
              /** Whether a card is saved (by a paid checkout top-up) for the off-session charge. */
              payment_method_saved: profile?.payment_method_id != null,
              last_attempt: attempt
                ? { status: attempt.status, amount_usd: usd(Number(attempt.amount_micros)), created_at: new Date(attempt.created_at).toISOString(), failure: attempt.failure }
                : null,
            }
          : null,
      subscriptions: subscriptions.map((s) => ({
        workflow_id: s.workflow_id,
        status: s.status === 'pending' ? 'incomplete' : s.status,
        started_at: new Date(s.started_at).toISOString(),
        current_period_end: new Date(s.current_period_end).toISOString(),
        cancel_at_period_end: s.cancel_at_period_end,
        price_usd: usd(Number(s.price_micros)),
      })),
      ledger: entries.map((e) => ({
        id: e.id,
        txn_id: e.txn_id,
        book: e.book,
        amount_usd: usd(Number(e.amount_micros)),
        amount_micros: Number(e.amount_micros),
        kind: e.kind,
        call_id: e.call_id,
        ref: e.ref,
        created_at: new Date(e.created_at).toISOString(),
      })),
    };
  }

  /** A support credit to a tenant's wallet (admin API): from the platform's grants book. */
  async credit(accountId: string, amountMicros: number, reason: string): Promise<void> {
    const rows = transfer({ txn: newId('credit'), accountId, from: 'grants', to: 'wallet', amount: amountMicros, kind: 'credit', ref: reason });
    await this.#sql(INSERT_LEDGER, [JSON.stringify(rows)]);
    await this.#budget.credited(accountId, amountMicros);
  }
}
