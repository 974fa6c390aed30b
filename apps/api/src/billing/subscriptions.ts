// Managed Production subscriptions (spec 3, 4.4; design §9; issue 35). With a payment processor
// configured, a subscription is a Stripe subscription on the plan's recurring price, charged to
// the card the tenant's checkout saved: POST creates it (the first payment is taken then; a
// decline starts nothing) and moves the workflow to production; DELETE sets it to cancel at the
// period's end; from then on its state is what Stripe says, applied from signed webhooks
// (subscription-state.ts): past due → production goes on for the grace period, then calls
// answer 402 subscription_required until a payment succeeds; ended → the workflow leaves
// production. Each subscribed workflow adds the plan's runs to the tenant's managed-run cap.
//
// Without a processor (a self-hosted gateway with no STRIPE_SECRET_KEY) the plan is paid from
// the tenant's wallet, each month once, with the same past due, grace and pause
// (wallet-subscriptions.ts; docs/decisions.md).
import Stripe from 'stripe';
import type { Database } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { Accounts } from '../tenancy/accounts.ts';
import type { WorkflowLife } from '../workflows/life.ts';
import { usd } from '../wire/usage.ts';
import { PlanPrice, type Plan } from './plan.ts';
import type { Budget } from './budget.ts';
import { subscriptionOf, writeState, type Written } from './subscription-state.ts';
import { WalletSubscriptions } from './wallet-subscriptions.ts';

/** A subscription in good standing: paid (or cancelling at its period's end), or past due within its grace. */
const GOOD_STANDING = `((status in ('active', 'cancelled') and (stripe_subscription_id is not null or current_period_end > now()))
  or (status = 'past_due' and paused_from > now()))`;

interface SubscriptionRow {
  status: string;
  stripe_subscription_id: string | null;
  current_period_end: Date | string;
  cancel_at_period_end: boolean;
  started_at: Date | string;
  past_due_since: Date | string | null;
  paused_from: Date | string | null;
  price_micros: string;
  run_cap: number;
}

export class Subscriptions {
  readonly #db: Database;
  readonly #accounts: Accounts;
  readonly #logger: Logger;
  readonly #sweepMs: number;
  readonly #stripe: () => Stripe | null;
  readonly #plan: Plan;
  readonly #price: PlanPrice;
  readonly #baseRunCap: number;
  readonly #graceS: number;
  readonly #wallet: WalletSubscriptions;
  #life: WorkflowLife | null = null;
  #timer: NodeJS.Timeout | null = null;

  constructor(deps: { db: Database; accounts: Accounts; logger: Logger; sweepMs: number; stripe: () => Stripe | null; plan: Plan; baseRunCap: number; graceS: number }) {
    this.#db = deps.db;
    this.#accounts = deps.accounts;
    this.#logger = deps.logger;
    this.#sweepMs = deps.sweepMs;
    this.#stripe = deps.stripe;
    this.#plan = deps.plan;
    this.#price = new PlanPrice(deps.plan);
    this.#baseRunCap = deps.baseRunCap;
    this.#graceS = deps.graceS;
    this.#wallet = new WalletSubscriptions({ db: deps.db, plan: deps.plan, graceS: deps.graceS });
  }

  /** The wallet's counters, for subscriptions paid from it (billing is made after subscriptions). */
  attachBudget(budget: Budget): void {
    this.#wallet.attach(budget);
  }

  #sql<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.#db.em().getConnection().execute(sql, params) as Promise<T[]>;
  }

  /** Workflow life asks billing whether a workflow may be in production; billing moves stages through it. */
  attach(life: WorkflowLife): void {
    this.#life = life;
    this.#timer = setInterval(() => void this.sweep().catch((err: unknown) => this.#logger.warn({ err }, 'subscription sweep failed')), this.#sweepMs);
    this.#timer.unref();
  }

  /** Whether the workflow's subscription is in good standing (a cancelled one runs to its end; a past-due one through its grace). */
  readonly isActive = async (accountId: string, workflowId: string): Promise<boolean> => {
    const [row] = await this.#sql<{ ok: boolean }>(`select true as ok from subscriptions where workflow_id = ? and account_id = ? and ${GOOD_STANDING}`, [workflowId, accountId]);
    return row?.ok === true;
  };

  /** The tenant's managed-run cap this month: the cap without a plan, plus the plan's runs per subscription in good standing. */
  readonly runCap = async (accountId: string): Promise<number> => {
    const [row] = await this.#sql<{ runs: number }>(`select coalesce(sum(run_cap), 0)::int as runs from subscriptions where account_id = ? and ${GOOD_STANDING}`, [accountId]);
    return this.#baseRunCap + (row?.runs ?? 0);
  };

  async start(accountId: string, workflowId: string) {
    await this.#accounts.getWorkflow(accountId, workflowId);
    const stripe = this.#stripe();
    if (!stripe) return this.#startLocal(accountId, workflowId);
    await this.#life!.requireFinalizedReport(workflowId); // 409 before anything is charged
    const [row] = await this.#sql<SubscriptionRow>('select * from subscriptions where workflow_id = ?', [workflowId]);
    if (row?.stripe_subscription_id && ['active', 'cancelled', 'past_due'].includes(row.status)) {
      // already subscribed: starting again takes back a cancellation
      if (row.cancel_at_period_end) await this.#write(row.stripe_subscription_id, () => stripe.subscriptions.update(row.stripe_subscription_id!, { cancel_at_period_end: false }));
      if (await this.isActive(accountId, workflowId)) await this.#life!.moveTo(accountId, workflowId, 'production');
      return this.get(accountId, workflowId);
    }
    const [profile] = await this.#sql<{ stripe_customer_id: string | null; payment_method_id: string | null }>('select stripe_customer_id, payment_method_id from billing_profiles where account_id = ?', [accountId]);
    if (!profile?.stripe_customer_id || !profile.payment_method_id) throw new ApiError('payment_method_required', 'No card is saved for this account: pay one top-up (POST /v1/billing/topup); its checkout keeps the card the subscription is charged to.');
    // one start at a time per workflow: the row is claimed as `pending` (a claim older than a minute is a crashed start)
    const claimed = await this.#sql<{ workflow_id: string }>(
      `insert into subscriptions (workflow_id, account_id, status, current_period_end, price_micros, run_cap, synced_at) values (?, ?, 'pending', now(), ?, ?, now())
       on conflict (workflow_id) do update set status = 'pending', stripe_subscription_id = null, synced_at = now(), price_micros = excluded.price_micros, run_cap = excluded.run_cap
         where subscriptions.status in ('lapsed', 'incomplete') or (subscriptions.stripe_subscription_id is null and subscriptions.status <> 'pending')
            or (subscriptions.status = 'pending' and subscriptions.synced_at < now() - interval '1 minute')
       returning workflow_id`,
      [workflowId, accountId, this.#plan.priceMicros, this.#plan.runCap],
    );
    if (claimed.length === 0) throw new ApiError('conflict', `A subscription for workflow ${workflowId} is being started; retry in a moment.`);
    let sub: Stripe.Subscription;
    try {
      sub = await stripe.subscriptions.create(
        {
          customer: profile.stripe_customer_id,
          items: [{ price: await this.#price.id(stripe), quantity: 1 }],
          default_payment_method: profile.payment_method_id,
          payment_behavior: 'error_if_incomplete',
          off_session: true,
          metadata: { kind: 'managed_production', account_id: accountId, workflow_id: workflowId },
        },
        { idempotencyKey: `managed-production:${workflowId}:${new Date().toISOString()}` },
      );
    } catch (err) {
      // nothing started: the row goes back to what it was (none, or a lapsed subscription)
      if (row) await this.#sql(`update subscriptions set status = ?, stripe_subscription_id = ? where workflow_id = ? and status = 'pending'`, [row.status === 'pending' ? 'lapsed' : row.status, row.stripe_subscription_id, workflowId]);
      else await this.#sql(`delete from subscriptions where workflow_id = ? and status = 'pending'`, [workflowId]);
      if (err instanceof Stripe.errors.StripeCardError) throw new ApiError('payment_declined', `The card on file was declined (${[err.code, err.decline_code].filter(Boolean).join(', ')}): ${err.message} Nothing was started; save another card with a top-up and try again.`);
      const e = err as Error & { type?: string };
      throw new ApiError('upstream_error', `The payment processor did not start the subscription (${e.type ?? e.name}).`);
    }
    await this.#sql(`update subscriptions set stripe_subscription_id = ?, started_at = now(), past_due_since = null, paused_from = null, cancel_at_period_end = false where workflow_id = ?`, [sub.id, workflowId]);
    await this.#write(sub.id, async () => sub);
    if (await this.isActive(accountId, workflowId)) await this.#life!.moveTo(accountId, workflowId, 'production');
    return this.get(accountId, workflowId);
  }

  /** Without a processor: the month paid from the wallet (402 wallet_empty when it cannot), then production. */
  async #startLocal(accountId: string, workflowId: string) {
    await this.#life!.requireFinalizedReport(workflowId); // 409 before anything is charged
    const out = await this.#wallet.start(accountId, workflowId);
    if (out.changed) await this.#life!.reload();
    await this.#life!.moveTo(accountId, workflowId, 'production');
    return this.get(accountId, workflowId);
  }

  async cancel(accountId: string, workflowId: string) {
    await this.#accounts.getWorkflow(accountId, workflowId);
    const [row] = await this.#sql<SubscriptionRow>(`select * from subscriptions where workflow_id = ? and account_id = ? and status in ('active', 'cancelled', 'past_due')`, [workflowId, accountId]);
    if (!row) throw new ApiError('not_found', `Workflow ${workflowId} has no active subscription.`);
    const stripe = this.#stripe();
    if (row.stripe_subscription_id && stripe) {
      await this.#write(row.stripe_subscription_id, () => stripe.subscriptions.update(row.stripe_subscription_id!, { cancel_at_period_end: true }));
    } else if (row.status === 'past_due') {
      // paid from the wallet and its month unpaid: nothing runs to a period's end, it ends now
      await this.#sql(`update subscriptions set status = 'lapsed', cancel_at_period_end = true, paused_from = null where workflow_id = ? and status = 'past_due'`, [workflowId]);
      await this.#sql(`update workflows set stage = 'tuning' where id = ? and stage = 'production'`, [workflowId]);
      await this.#life?.reload();
    } else {
      await this.#sql(`update subscriptions set status = 'cancelled', cancel_at_period_end = true where workflow_id = ? and status in ('active', 'cancelled')`, [workflowId]);
    }
    return this.get(accountId, workflowId);
  }

  async get(accountId: string, workflowId: string) {
    const [s] = await this.#sql<SubscriptionRow>('select * from subscriptions where workflow_id = ? and account_id = ?', [workflowId, accountId]);
    if (!s) throw new ApiError('not_found', `Workflow ${workflowId} has no subscription.`);
    return {
      workflow_id: workflowId,
      status: s.status === 'pending' ? 'incomplete' : s.status,
      started_at: new Date(s.started_at).toISOString(),
      current_period_end: new Date(s.current_period_end).toISOString(),
      cancel_at_period_end: s.cancel_at_period_end,
      past_due_since: s.past_due_since ? new Date(s.past_due_since).toISOString() : null,
      paused: s.paused_from !== null && new Date(s.paused_from).getTime() <= Date.now(),
      price_usd: usd(Number(s.price_micros)),
      run_cap: s.run_cap,
    };
  }

  /** Writes the processor's subscription onto its row under the row's lock; every replica reloads when production's standing changed. */
  async #write(stripeId: string, read: () => Promise<Stripe.Subscription>): Promise<Written | null> {
    const written = await this.#db.em().transactional((em) => writeState(em, stripeId, read, this.#graceS));
    if (written?.changed) await this.#life?.reload();
    return written;
  }

  /**
   * Applies a subscription's or its invoice's webhook: the event id is recorded and the
   * subscription read back from Stripe and written, in one transaction; an event seen before
   * changes nothing. False when the event is about no subscription of ours.
   */
  async applyEvent(event: Stripe.Event): Promise<boolean> {
    const stripeId = subscriptionOf(event);
    const stripe = this.#stripe();
    if (!stripeId || !stripe) return false;
    const written = await this.#db.em().transactional(async (em) => {
      const conn = em.getConnection();
      const [fresh] = (await conn.execute(
        'insert into stripe_events (id, type, created) values (?, ?, to_timestamp(?)) on conflict (id) do nothing returning id',
        [event.id, event.type, event.created],
        'all',
        em.getTransactionContext(),
      )) as unknown[];
      if (!fresh) return null;
      return writeState(em, stripeId, () => stripe.subscriptions.retrieve(stripeId), this.#graceS);
    });
    if (written?.changed) await this.#life?.reload();
    return true;
  }

  /**
   * Without a processor: lapses cancelled subscriptions past their period (their workflows leave
   * production), and pays the next month of the others from the wallet (past due when it cannot).
   */
  async sweep(): Promise<void> {
    const lapsed = await this.#sql<{ workflow_id: string }>(
      `with l as (update subscriptions set status = 'lapsed' where stripe_subscription_id is null and status = 'cancelled' and current_period_end <= now() returning workflow_id)
       update workflows set stage = 'tuning' where id in (select workflow_id from l) and stage = 'production' returning id as workflow_id`,
    );
    const changed = await this.#wallet.renewDue();
    if (lapsed.length > 0 || changed) await this.#life?.reload();
  }

  /** Money reached a tenant's wallet: its past-due wallet-paid months are paid now, rather than at the next sweep. */
  async walletCredited(accountId: string): Promise<void> {
    if (this.#stripe()) return;
    if (await this.#wallet.renewDue(accountId)) await this.#life?.reload();
  }

  close(): void {
    if (this.#timer) clearInterval(this.#timer);
  }
}
