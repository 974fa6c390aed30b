// Auto top-up and the wallet-low alert (issues 16, 17). A crossing is the wallet's ledger
// balance going from at or above a level to below it. Crossings are found off the hot path:
// after the meter has written calls that debited a wallet (a nudge, coalesced per account),
// after money came in (which re-arms), and by a periodic sweep that catches a replica that
// died between writing and checking. The check runs under the account's billing_profiles row
// lock (`select … for update`) and reads the balance after taking it, so replicas decide one at
// a time on the committed ledger: the one that turns `auto_topup_armed` false owns that crossing
// and inserts its `auto_topups` row (one pending per account, by a partial unique index).
// The charge is one off-session PaymentIntent against the card saved by the first checkout,
// keyed by that row's id (Stripe's idempotency key); the wallet is credited only by the signed
// `payment_intent.succeeded` webhook (payments.ts). A failed charge (declined, no saved card,
// processor unreachable after the SDK's retries) is recorded, alerts `auto_topup_failed` once,
// and is not retried: the next attempt needs the next crossing (money in, then below again).
import type { AlertSettings, AutoTopupRequest } from '@optimizer/schema';
import type { Alerts } from '../alerts/alerts.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import { newId } from '../security/secrets.ts';
import type { TopicSettings } from '../settings/topic-settings.ts';
import { usd } from '../wire/usage.ts';
import type { Payments } from './payments.ts';
import { sqlIn } from '../db/sql-in.ts';

interface ProfileRow {
  stripe_customer_id: string | null;
  payment_method_id: string | null;
  auto_topup_threshold_micros: string | null;
  auto_topup_amount_micros: string | null;
  auto_topup_armed: boolean;
  wallet_low_armed: boolean;
  wallet_low_seq: number;
}

interface Attempt {
  id: string;
  accountId: string;
  amount: number;
  threshold: number;
  balance: number;
  customer: string | null;
  paymentMethod: string | null;
}

export interface AutoTopupSetting {
  threshold_usd: number | null;
  amount_usd: number | null;
}

export class AutoTopups {
  readonly #db: Database;
  readonly #payments: Payments;
  readonly #alerts: Alerts;
  readonly #alertSettings: TopicSettings<AlertSettings>;
  readonly #logger: Logger;
  readonly #running = new Map<string, Promise<void>>();
  readonly #again = new Set<string>();
  #timer: NodeJS.Timeout | null = null;
  #sweeping: Promise<void> | null = null;
  #stopped = false;

  constructor(deps: { db: Database; payments: Payments; alerts: Alerts; alertSettings: TopicSettings<AlertSettings>; logger: Logger }) {
    this.#db = deps.db;
    this.#payments = deps.payments;
    this.#alerts = deps.alerts;
    this.#alertSettings = deps.alertSettings;
    this.#logger = deps.logger;
  }

  #sql<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.#db.em().getConnection().execute(sql, params) as Promise<T[]>;
  }

  start(sweepMs: number): void {
    // a sweep that fails (the database is down) is logged and runs again at the next tick
    this.#timer = setInterval(() => void this.sweep().catch((err: unknown) => this.#logger.warn({ code: (err as NodeJS.ErrnoException).code ?? (err as Error).name }, 'auto top-up sweep failed; it runs again at the next tick')), sweepMs);
    this.#timer.unref();
  }

  /** Stores the setting; a new or changed setting is armed, so a wallet already below the threshold is topped up once. */
  async set(accountId: string, q: AutoTopupRequest): Promise<AutoTopupSetting> {
    const threshold = q.threshold_usd === null ? null : Math.round(q.threshold_usd * 1e6);
    const amount = q.amount_usd === null ? null : Math.round(q.amount_usd * 1e6);
    await this.#sql(
      `insert into billing_profiles (account_id, auto_topup_threshold_micros, auto_topup_amount_micros, auto_topup_armed) values (?, ?, ?, true)
         on conflict (account_id) do update set auto_topup_threshold_micros = excluded.auto_topup_threshold_micros,
           auto_topup_amount_micros = excluded.auto_topup_amount_micros, auto_topup_armed = true, updated_at = now()`,
      [accountId, threshold, amount],
    );
    this.nudge(accountId);
    return { threshold_usd: threshold === null ? null : usd(threshold), amount_usd: amount === null ? null : usd(amount) };
  }

  /** Looks for a crossing soon, off the caller's path; nudges while a check runs make it run once more after. */
  nudge(accountId: string): void {
    if (this.#stopped) return; // shutting down: the next start's sweep looks
    if (this.#running.has(accountId)) {
      this.#again.add(accountId);
      return;
    }
    const p = this.check(accountId)
      .catch((err: unknown) => this.#logger.warn({ err, account: accountId }, 'auto top-up check failed; the sweep looks again'))
      .finally(() => {
        this.#running.delete(accountId);
        if (this.#again.delete(accountId)) this.nudge(accountId);
      });
    this.#running.set(accountId, p);
  }

  /** Checks every account with auto top-up or a wallet-low level (the periodic safety net). */
  sweep(): Promise<void> {
    this.#sweeping ??= (async () => {
      const rows = await this.#sql<{ account_id: string }>('select account_id from billing_profiles where auto_topup_threshold_micros is not null');
      const ids = new Set(rows.map((r) => r.account_id));
      for (const [id, s] of this.#alertSettings.entries()) if (s.wallet_low_usd !== null) ids.add(id);
      for (const id of ids) await this.check(id).catch((err: unknown) => this.#logger.warn({ err, account: id }, 'auto top-up check failed'));
    })().finally(() => (this.#sweeping = null));
    return this.#sweeping;
  }

  /** Waits for checks and charges in flight (tests, shutdown). */
  async settle(): Promise<void> {
    while (this.#running.size > 0 || this.#sweeping) await Promise.all([...this.#running.values(), this.#sweeping]);
  }

  /** One look at the account's balance against its levels, under its profile's row lock; then the alert and the charge it owns. */
  async check(accountId: string): Promise<void> {
    const lowUsd = this.#alertSettings.get(accountId).wallet_low_usd;
    if (lowUsd !== null) await this.#sql('insert into billing_profiles (account_id) values (?) on conflict (account_id) do nothing', [accountId]);
    const decided = await this.#db.em().transactional(async (em) => {
      const run = sqlIn(em);
      const [p] = await run<ProfileRow>(
        `select stripe_customer_id, payment_method_id, auto_topup_threshold_micros::text, auto_topup_amount_micros::text, auto_topup_armed, wallet_low_armed, wallet_low_seq
           from billing_profiles where account_id = ? for update`,
        [accountId],
      );
      if (!p) return null;
      // read after the lock: every decision made before this one is committed and counted
      const [b] = await run<{ wallet: string }>(`select coalesce(sum(amount_micros), 0)::text as wallet from ledger_entries where account_id = ? and book = 'wallet'`, [accountId]);
      const balance = Number(b!.wallet);
      const threshold = p.auto_topup_threshold_micros === null ? null : Number(p.auto_topup_threshold_micros);
      const amount = p.auto_topup_amount_micros === null ? null : Number(p.auto_topup_amount_micros);
      let armed = p.auto_topup_armed;
      let attempt: Attempt | null = null;
      if (threshold !== null && amount !== null) {
        if (balance >= threshold) armed = true;
        else if (armed) {
          armed = false;
          const id = newId('atu');
          const [made] = await run<{ id: string }>(
            `insert into auto_topups (id, account_id, amount_micros, threshold_micros, balance_micros, status) values (?, ?, ?, ?, ?, 'pending')
               on conflict do nothing returning id`,
            [id, accountId, amount, threshold, balance],
          );
          // a charge still pending (its webhook not in yet) covers this crossing too
          if (made) attempt = { id, accountId, amount, threshold, balance, customer: p.stripe_customer_id, paymentMethod: p.payment_method_id };
        }
      }
      const level = lowUsd !== null ? Math.round(lowUsd * 1e6) : threshold;
      let lowArmed = p.wallet_low_armed;
      let low: { seq: number; level: number } | null = null;
      if (level !== null) {
        if (balance >= level) lowArmed = true;
        else if (lowArmed) {
          lowArmed = false;
          low = { seq: p.wallet_low_seq + 1, level };
        }
      }
      if (armed !== p.auto_topup_armed || lowArmed !== p.wallet_low_armed) {
        await run('update billing_profiles set auto_topup_armed = ?, wallet_low_armed = ?, wallet_low_seq = ? where account_id = ?', [armed, lowArmed, low?.seq ?? p.wallet_low_seq, accountId]);
      }
      return { attempt, low, balance, autoTopup: threshold !== null && amount !== null ? { threshold, amount } : null };
    });
    if (!decided) return;
    if (decided.low) {
      const { seq, level } = decided.low;
      const topup = decided.autoTopup;
      await this.#alerts.raise(accountId, `wallet_low:${accountId}:${seq}`, {
        type: 'wallet_low',
        data: { balance_usd: usd(decided.balance), level_usd: usd(level), auto_topup: topup ? { threshold_usd: usd(topup.threshold), amount_usd: usd(topup.amount) } : null },
        subject: `Wallet low: $${usd(decided.balance)}`,
        text: `Your wallet balance fell to $${usd(decided.balance)}, below $${usd(level)}.${topup ? ` Auto top-up adds $${usd(topup.amount)}.` : ' Top up at POST /v1/billing/topup so calls on platform keys go on.'}`,
      });
    }
    if (decided.attempt) await this.#charge(decided.attempt);
  }

  /** Starts the one off-session payment of an attempt; the webhook credits it. */
  async #charge(a: Attempt): Promise<void> {
    if (!a.customer || !a.paymentMethod) {
      await this.failed(a.id, 'no saved payment method: pay one top-up by checkout (POST /v1/billing/topup) to save a card');
      return;
    }
    const r = await this.#payments.chargeOffSession({ accountId: a.accountId, attemptId: a.id, amountMicros: a.amount, customer: a.customer, paymentMethod: a.paymentMethod });
    if (r.paymentIntentId) await this.#sql('update auto_topups set payment_intent_id = coalesce(payment_intent_id, ?) where id = ?', [r.paymentIntentId, a.id]);
    if (!r.ok) await this.failed(a.id, r.reason);
  }

  /** Records a failed attempt (once) and alerts `auto_topup_failed` once; no retry until the next crossing. */
  async failed(attemptId: string, reason: string): Promise<void> {
    const [row] = await this.#sql<{ account_id: string; amount_micros: string; balance_micros: string }>(
      `update auto_topups set status = 'failed', failure = ?, settled_at = now() where id = ? and status = 'pending' returning account_id, amount_micros::text, balance_micros::text`,
      [reason.slice(0, 300), attemptId],
    );
    if (!row) return;
    this.#logger.warn({ account: row.account_id, attempt: attemptId, reason }, 'auto top-up failed; not retried until the wallet crosses the threshold again');
    const amount = usd(Number(row.amount_micros));
    await this.#alerts.raise(row.account_id, `auto_topup_failed:${attemptId}`, {
      type: 'auto_topup_failed',
      data: { attempt_id: attemptId, amount_usd: amount, balance_usd: usd(Number(row.balance_micros)), reason },
      subject: `Auto top-up of $${amount} failed`,
      text: `The automatic top-up of $${amount} could not be charged: ${reason}. It is not retried; top up at POST /v1/billing/topup (a new card is saved by that checkout).`,
    });
  }

  /** The succeeded payment's attempt is done (the webhook credited it); the wallet's new balance may re-arm. */
  async succeeded(attemptId: string, paymentIntentId: string, accountId: string): Promise<void> {
    // also after a `failed` that was a lost answer (the processor charged, then the connection dropped): the record follows the money
    await this.#sql(`update auto_topups set status = 'succeeded', payment_intent_id = coalesce(payment_intent_id, ?), settled_at = now() where id = ? and status <> 'succeeded'`, [paymentIntentId, attemptId]);
    this.nudge(accountId);
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
  }
}
