// Managed subscriptions without a payment processor (no STRIPE_SECRET_KEY: an embedded or
// self-hosted gateway): the plan's price (MANAGED_PLAN_PRICE_USD) is taken from the tenant's
// wallet, at the start and at each renewal, as one ledger transaction per workflow and period
// (`subscription:<workflow>:<period start>`), so it is charged once across replicas and retries.
// A wallet that cannot pay at the start is 402 wallet_empty with nothing started; at a renewal
// the subscription goes past due: production goes on for BILLING_GRACE_S, then the workflow's
// calls answer 402 subscription_required, as on the Stripe path, until the month is paid (a
// top-up, then the next sweep or a POST). Each step runs in one transaction under the account's
// row lock (wallet-debit.ts), so two replicas decide one after the other.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Database } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import { usd } from '../wire/usage.ts';
import type { Budget } from './budget.ts';
import type { Plan } from './plan.ts';
import { debitWallet } from './wallet-debit.ts';
import { sqlIn, type Sql } from '../db/sql-in.ts';

export function monthAfter(d: Date): Date {
  const next = new Date(d);
  next.setUTCMonth(next.getUTCMonth() + 1);
  return next;
}

interface Row {
  workflow_id: string;
  account_id: string;
  status: string;
  current_period_end: Date | string;
  cancel_at_period_end: boolean;
  paused_from: Date | string | null;
}

/** What one step did: whether money moved (the hot counters follow) and whether production's standing changed (every replica reloads). */
export interface Outcome {
  debited: number;
  changed: boolean;
  /** The start (or a past-due month) could not be paid. */
  short?: boolean;
}

export class WalletSubscriptions {
  readonly #db: Database;
  readonly #plan: Plan;
  readonly #graceS: number;
  #budget: Budget | null = null;

  constructor(deps: { db: Database; plan: Plan; graceS: number }) {
    this.#db = deps.db;
    this.#plan = deps.plan;
    this.#graceS = deps.graceS;
  }

  /** The wallet's hot counters, moved after a debit (billing is made after subscriptions). */
  attach(budget: Budget): void {
    this.#budget = budget;
  }

  /** One step in a transaction under the account's row lock; the hot counters follow a debit once it is committed. */
  async #tx(accountId: string, fn: (run: Sql, em: EntityManager) => Promise<Outcome>): Promise<Outcome> {
    const out = await this.#db.em().transactional(async (em) => {
      const run = sqlIn(em);
      await run('select 1 from accounts where id = ? for update', [accountId]);
      return fn(run, em);
    });
    if (out.debited > 0) await this.#budget?.credited(accountId, -out.debited);
    return out;
  }

  /** Pays the month starting at `start` from the wallet, once: the micro-dollars taken now (0 when taken before), or null when the wallet is short. */
  async #pay(em: EntityManager, accountId: string, workflowId: string, start: Date): Promise<number | null> {
    if (this.#plan.priceMicros <= 0) return 0;
    const d = await debitWallet(em, { accountId, txn: `subscription:${workflowId}:${start.toISOString()}`, micros: this.#plan.priceMicros, kind: 'subscription', ref: workflowId });
    return d === false ? null : d === 'new' ? this.#plan.priceMicros : 0;
  }

  /**
   * Starts (or restarts) the workflow's subscription: a paid month still running takes back its
   * cancellation; a past-due one pays its open month; otherwise a month from now is paid. 402
   * wallet_empty, with nothing written, when the wallet cannot pay.
   */
  async start(accountId: string, workflowId: string): Promise<Outcome> {
    const out = await this.#tx(accountId, async (run, em) => {
      const [row] = await run<Row>('select * from subscriptions where workflow_id = ? for update', [workflowId]);
      const end = row ? new Date(row.current_period_end) : null;
      if (row && ['active', 'cancelled'].includes(row.status) && end!.getTime() > Date.now()) {
        await run(`update subscriptions set status = 'active', cancel_at_period_end = false where workflow_id = ?`, [workflowId]);
        return { debited: 0, changed: false };
      }
      if (row?.status === 'past_due') return this.#renew(run, em, row, true);
      const start = new Date();
      const debited = await this.#pay(em, accountId, workflowId, start);
      if (debited === null) return { debited: 0, changed: false, short: true };
      await run(
        `insert into subscriptions (workflow_id, account_id, status, started_at, current_period_end, cancel_at_period_end, price_micros, run_cap, past_due_since, paused_from)
         values (?, ?, 'active', ?, ?, false, ?, ?, null, null)
         on conflict (workflow_id) do update set status = 'active', started_at = excluded.started_at, current_period_end = excluded.current_period_end, cancel_at_period_end = false,
           price_micros = excluded.price_micros, run_cap = excluded.run_cap, past_due_since = null, paused_from = null, stripe_subscription_id = null, stripe_status = null`,
        [workflowId, accountId, start.toISOString(), monthAfter(start).toISOString(), this.#plan.priceMicros, this.#plan.runCap],
      );
      return { debited, changed: false };
    });
    if (out.short) throw this.#short(workflowId);
    return out;
  }

  #short(workflowId: string): ApiError {
    return new ApiError(
      'wallet_empty',
      `The wallet cannot pay the managed plan's ${usd(this.#plan.priceMicros)} USD for workflow ${workflowId}'s month (without a payment processor the plan is paid from the wallet): top up, then subscribe again. Nothing was started.`,
    );
  }

  /**
   * The month after the row's period end, paid from the wallet: the row moves a month on (and out
   * of past due); a short wallet puts an active row past due with its grace (`strict`: a POST, the
   * caller answers 402 instead and the row is left as it was).
   */
  async #renew(run: Sql, em: EntityManager, row: Row, strict: boolean): Promise<Outcome> {
    const start = new Date(row.current_period_end);
    const debited = await this.#pay(em, row.account_id, row.workflow_id, start);
    if (debited !== null) {
      await run(`update subscriptions set status = 'active', current_period_end = ?, past_due_since = null, paused_from = null, price_micros = ? where workflow_id = ?`, [
        monthAfter(start).toISOString(),
        this.#plan.priceMicros,
        row.workflow_id,
      ]);
      return { debited, changed: row.paused_from !== null };
    }
    if (strict) return { debited: 0, changed: false, short: true };
    if (row.status === 'past_due') return { debited: 0, changed: false };
    const now = new Date();
    await run(`update subscriptions set status = 'past_due', past_due_since = ?, paused_from = ? where workflow_id = ?`, [now.toISOString(), new Date(now.getTime() + this.#graceS * 1000).toISOString(), row.workflow_id]);
    return { debited: 0, changed: true };
  }

  /**
   * Renews the wallet-paid subscriptions whose month has ended (and retries the past-due ones):
   * each under its account's lock, so a month is paid once however many replicas sweep. `accountId`
   * limits it to one tenant (after a top-up). True when production's standing changed somewhere.
   */
  async renewDue(accountId?: string): Promise<boolean> {
    const due = await this.#db
      .em()
      .getConnection()
      .execute(
        `select workflow_id, account_id from subscriptions where stripe_subscription_id is null
           and ((status = 'active' and current_period_end <= now()) or status = 'past_due')${accountId ? ' and account_id = ?' : ''}`,
        accountId ? [accountId] : [],
      ) as { workflow_id: string; account_id: string }[];
    let changed = false;
    for (const d of due) {
      const out = await this.#tx(d.account_id, async (run, em) => {
        const [row] = await run<Row>(`select * from subscriptions where workflow_id = ? and stripe_subscription_id is null for update`, [d.workflow_id]);
        // another replica renewed it since the list was read: its period has moved on
        if (!row || !((row.status === 'active' && new Date(row.current_period_end).getTime() <= Date.now()) || row.status === 'past_due')) return { debited: 0, changed: false };
        return this.#renew(run, em, row, false);
      });
      changed ||= out.changed;
    }
    return changed;
  }
}
