// Managed Production subscriptions (spec 3, 4.4; design §9): POST starts one and moves the
// workflow to production (it needs a finalized report, workflows/life.ts); DELETE cancels at
// the end of the paid period, during which production goes on; a subscription past its period
// and cancelled lapses, and its workflow returns to `ready` (tuning stored, ready derived). An
// active one that was not cancelled renews for the next month. The fee of production calls is
// fee_rate × their savings, charged per call and shown on statements.
import type { Database } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { Accounts } from '../tenancy/accounts.ts';
import type { WorkflowLife } from '../workflows/life.ts';

function monthAfter(d: Date): Date {
  const next = new Date(d);
  next.setUTCMonth(next.getUTCMonth() + 1);
  return next;
}

export class Subscriptions {
  readonly #db: Database;
  readonly #accounts: Accounts;
  readonly #logger: Logger;
  readonly #sweepMs: number;
  #life: WorkflowLife | null = null;
  #timer: NodeJS.Timeout | null = null;

  constructor(deps: { db: Database; accounts: Accounts; logger: Logger; sweepMs: number }) {
    this.#db = deps.db;
    this.#accounts = deps.accounts;
    this.#logger = deps.logger;
    this.#sweepMs = deps.sweepMs;
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

  /** Whether the workflow has a subscription in its paid period (a cancelled one runs to its end). */
  readonly isActive = async (accountId: string, workflowId: string): Promise<boolean> => {
    const [row] = await this.#sql<{ ok: boolean }>(
      `select true as ok from subscriptions where workflow_id = ? and account_id = ? and status in ('active', 'cancelled') and current_period_end > now()`,
      [workflowId, accountId],
    );
    return row?.ok === true;
  };

  async start(accountId: string, workflowId: string) {
    await this.#accounts.getWorkflow(accountId, workflowId);
    const end = monthAfter(new Date());
    const [prior] = await this.#sql<{ status: string }>('select status from subscriptions where workflow_id = ?', [workflowId]);
    await this.#sql(
      `insert into subscriptions (workflow_id, account_id, status, started_at, current_period_end, cancel_at_period_end, price_micros)
       values (?, ?, 'active', now(), ?, false, 0)
       on conflict (workflow_id) do update set status = 'active', cancel_at_period_end = false,
         started_at = case when subscriptions.status = 'lapsed' then now() else subscriptions.started_at end,
         current_period_end = case when subscriptions.status = 'lapsed' then excluded.current_period_end else subscriptions.current_period_end end`,
      [workflowId, accountId, end.toISOString()],
    );
    try {
      await this.#life!.moveTo(accountId, workflowId, 'production');
    } catch (err) {
      // production refused (no finalized report): the subscription is not started either
      if (prior) await this.#sql(`update subscriptions set status = ? where workflow_id = ?`, [prior.status, workflowId]);
      else await this.#sql('delete from subscriptions where workflow_id = ?', [workflowId]);
      throw err;
    }
    return this.get(accountId, workflowId);
  }

  async cancel(accountId: string, workflowId: string) {
    await this.#accounts.getWorkflow(accountId, workflowId);
    const rows = await this.#sql<{ workflow_id: string }>(
      `update subscriptions set status = 'cancelled', cancel_at_period_end = true where workflow_id = ? and account_id = ? and status in ('active', 'cancelled') returning workflow_id`,
      [workflowId, accountId],
    );
    if (rows.length === 0) throw new ApiError('not_found', `Workflow ${workflowId} has no active subscription.`);
    return this.get(accountId, workflowId);
  }

  async get(accountId: string, workflowId: string) {
    const [s] = await this.#sql<{ status: string; current_period_end: Date | string; cancel_at_period_end: boolean; started_at: Date | string }>(
      'select status, started_at, current_period_end, cancel_at_period_end from subscriptions where workflow_id = ? and account_id = ?',
      [workflowId, accountId],
    );
    if (!s) throw new ApiError('not_found', `Workflow ${workflowId} has no subscription.`);
    return {
      workflow_id: workflowId,
      status: s.status,
      started_at: new Date(s.started_at).toISOString(),
      current_period_end: new Date(s.current_period_end).toISOString(),
      cancel_at_period_end: s.cancel_at_period_end,
    };
  }

  /** Lapses cancelled subscriptions past their period (their workflows leave production) and renews the others. */
  async sweep(): Promise<void> {
    const lapsed = await this.#sql<{ workflow_id: string }>(
      `with l as (update subscriptions set status = 'lapsed' where status = 'cancelled' and current_period_end <= now() returning workflow_id)
       update workflows set stage = 'tuning' where id in (select workflow_id from l) and stage = 'production' returning id as workflow_id`,
    );
    const due = await this.#sql<{ workflow_id: string; current_period_end: Date | string }>(`select workflow_id, current_period_end from subscriptions where status = 'active' and current_period_end <= now()`);
    for (const d of due) {
      await this.#sql(`update subscriptions set current_period_end = ? where workflow_id = ? and status = 'active'`, [monthAfter(new Date(d.current_period_end)).toISOString(), d.workflow_id]);
    }
    if (lapsed.length > 0) await this.#life?.reload();
  }

  close(): void {
    if (this.#timer) clearInterval(this.#timer);
  }
}
