// Workflow life (spec 3, 4.2; design §9): a workflow's stage, its reports and their frozen
// versions, its lockfile, and which lockfiles are in force. Every door calls this service;
// each tenant-facing method checks the workflow is the tenant's first (404 otherwise).
//
// Stages: `tuning` and `production` are stored; `ready` is derived (every expected step
// settled). Only a managed subscription in good standing moves a workflow into production
// (billing/subscriptions.ts answers); without one the transition refuses with 402
// `subscription_required`, and so do the calls of a production workflow whose past-due
// subscription's grace is over (its production is paused until a payment succeeds).
import type { Database } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import type { HotStore } from '../hot/store.ts';
import { NewestRead } from '../hot/newest-read.ts';
import type { StepRegistry, WorkflowSummary } from '../optimizer/registry.ts';
import type { RoutingSettings } from '../optimizer/settings.ts';
import type { Accounts } from '../tenancy/accounts.ts';
import type { Lockfile, Report, ReportBody, WorkflowStage as Stage } from '@optimizer/schema';
import { lockfileOf } from './lockfile.ts';
import { reportBody } from './report.ts';

const CHANGED = 'workflow-life:changed';

/** Whether a workflow has an active managed subscription: billing's answer. */
export type SubscriptionCheck = (accountId: string, workflowId: string) => Promise<boolean>;

/** Without billing there are no subscriptions, so none is active. */
export const noSubscriptions: SubscriptionCheck = async () => false;

interface StoredVersion {
  version: number;
  finalized_at: Date | string;
  body: ReportBody;
}

const iso = (t: Date | string) => new Date(t).toISOString();

export function deriveStage(stored: string, summary: Pick<WorkflowSummary, 'steps_expected' | 'steps_settled'> | undefined): Stage {
  if (stored === 'production') return 'production';
  return summary && summary.steps_expected > 0 && summary.steps_settled === summary.steps_expected ? 'ready' : 'tuning';
}

export class WorkflowLife {
  readonly #db: Database;
  readonly #hot: HotStore;
  readonly #accounts: Accounts;
  readonly #steps: StepRegistry;
  readonly #routing: RoutingSettings;
  readonly #subscribed: SubscriptionCheck;
  /**
   * Per production workflow: the lockfile in force, when its production pauses (a past-due
   * subscription's grace ends; ms since the epoch) and whether its fees go on the processor's
   * invoice rather than the wallet. The hot path reads it; no database wait.
   */
  #inForce = new Map<string, { accountId: string; lock: Lockfile | undefined; pausedFrom: number | null; feesInvoiced: boolean }>();
  /** Overlapping reloads: an older read never replaces a newer one. */
  readonly #reads = new NewestRead();

  constructor(opts: { db: Database; hot: HotStore; accounts: Accounts; steps: StepRegistry; routing: RoutingSettings; subscribed?: SubscriptionCheck }) {
    this.#db = opts.db;
    this.#hot = opts.hot;
    this.#accounts = opts.accounts;
    this.#steps = opts.steps;
    this.#routing = opts.routing;
    this.#subscribed = opts.subscribed ?? noSubscriptions;
  }

  async start(): Promise<void> {
    await this.#load();
    await this.#hot.subscribe(CHANGED, () => this.#load());
  }

  /** Reads every production workflow's newest stored report into memory. */
  async #load(): Promise<void> {
    const rows = (await this.#reads.read(() => this.#db.em().getConnection().execute(
      `select w.id, w.account_id, r.version, r.finalized_at, r.body, s.paused_from, (s.stripe_subscription_id is not null) as invoiced
         from workflows w
         left join lateral (select version, finalized_at, body from workflow_reports where workflow_id = w.id order by version desc limit 1) r on true
         left join subscriptions s on s.workflow_id = w.id
        where w.stage = 'production'`,
    ))) as (({ id: string; account_id: string; paused_from: Date | string | null; invoiced: boolean | null } & Partial<StoredVersion>)[]) | undefined;
    if (rows === undefined) return; // a reload begun later is in memory already
    this.#inForce = new Map(
      rows.map((r) => [
        r.id,
        {
          accountId: r.account_id,
          lock: r.body && r.version !== undefined && r.finalized_at ? lockfileOf(r.body, r.version, iso(r.finalized_at)) : undefined,
          pausedFrom: r.paused_from ? new Date(r.paused_from).getTime() : null,
          feesInvoiced: r.invoiced === true,
        },
      ]),
    );
  }

  /**
   * Re-reads which lockfiles are in force, on every replica. Billing calls it after it moves
   * a workflow's stage (a subscription started or lapsed).
   */
  async reload(): Promise<void> {
    await this.#load();
    await this.#hot.publish(CHANGED, '');
  }

  /** The lockfile a workflow's routing follows, when it is in production with a finalized report. */
  lockInForce(accountId: string, workflowId: string): Lockfile | undefined {
    const held = this.#inForce.get(workflowId);
    return held && held.accountId === accountId ? held.lock : undefined;
  }

  /** Refuses a call of a production workflow whose production is paused (402 subscription_required). */
  refusePaused(accountId: string, workflowId: string): void {
    const held = this.#inForce.get(workflowId);
    if (!held || held.accountId !== accountId || held.pausedFrom === null || Date.now() < held.pausedFrom) return;
    throw new ApiError(
      'subscription_required',
      `Workflow ${workflowId}'s managed production is paused: its subscription is past due and the grace period ended at ${new Date(held.pausedFrom).toISOString()}. It resumes once the month is paid: the open invoice, or, without a payment processor, the plan's price from the wallet after a top-up (GET /v1/workflows/${workflowId}/subscription).`,
    );
  }

  /** Whether a production workflow's fees are invoiced on the payment processor at the period's close (not taken from the wallet per call). */
  feesInvoiced(accountId: string, workflowId: string): boolean {
    const held = this.#inForce.get(workflowId);
    return held !== undefined && held.accountId === accountId && held.feesInvoiced;
  }

  /** 409 when the workflow has no finalized report (production routes by its lockfile). */
  async requireFinalizedReport(workflowId: string): Promise<void> {
    if ((await this.#versions(workflowId)).length === 0) throw new ApiError('conflict', `Finalize a report of workflow ${workflowId} first: production routes by its lockfile.`);
  }

  /** Whether a workflow is in production (its lockfile in force): its calls run on the tenant's own provider keys. */
  inProduction(accountId: string, workflowId: string): boolean {
    return this.lockInForce(accountId, workflowId) !== undefined;
  }

  /** Each workflow's stored stage, for the workflow list. */
  async storedStages(accountId: string): Promise<Map<string, string>> {
    const rows = (await this.#db.em().getConnection().execute('select id, stage from workflows where account_id = ?', [accountId])) as { id: string; stage: string }[];
    return new Map(rows.map((r) => [r.id, r.stage]));
  }

  async stage(accountId: string, workflowId: string): Promise<Stage> {
    const wf = await this.#accounts.getWorkflow(accountId, workflowId);
    return deriveStage(wf.stage, (await this.#steps.summary(accountId)).get(workflowId));
  }

  /**
   * Moves a workflow to a stage. Only `production` can be asked for (`ready` follows from the
   * steps, and leaving production is cancelling the subscription); it needs an active managed
   * subscription and a finalized report for routing to follow.
   */
  async moveTo(accountId: string, workflowId: string, stage: 'production'): Promise<{ id: string; stage: Stage }> {
    const current = await this.stage(accountId, workflowId);
    if (current === stage) return { id: workflowId, stage };
    if (!(await this.#subscribed(accountId, workflowId))) {
      throw new ApiError('subscription_required', `Workflow ${workflowId} needs an active managed subscription (POST /v1/workflows/${workflowId}/subscription) to enter production.`);
    }
    await this.requireFinalizedReport(workflowId);
    await this.#db.em().getConnection().execute(`update workflows set stage = 'production' where id = ? and account_id = ?`, [workflowId, accountId]);
    await this.reload();
    return { id: workflowId, stage: 'production' };
  }

  async #versions(workflowId: string): Promise<number[]> {
    const rows = (await this.#db.em().getConnection().execute('select version from workflow_reports where workflow_id = ? order by version asc', [workflowId])) as { version: number }[];
    return rows.map((r) => r.version);
  }

  async #stored(workflowId: string, version?: number): Promise<StoredVersion | undefined> {
    const rows = (await this.#db
      .em()
      .getConnection()
      .execute(
        version === undefined
          ? 'select version, finalized_at, body from workflow_reports where workflow_id = ? order by version desc limit 1'
          : 'select version, finalized_at, body from workflow_reports where workflow_id = ? and version = ?',
        version === undefined ? [workflowId] : [workflowId, version],
      )) as StoredVersion[];
    return rows[0];
  }

  async #live(accountId: string, workflowId: string): Promise<ReportBody> {
    return reportBody(workflowId, await this.#steps.list(accountId, workflowId), this.#routing.floor(accountId));
  }

  /** The live report, or stored version N (404 when there is no such version). */
  async report(accountId: string, workflowId: string, version?: number): Promise<Report> {
    const stage = await this.stage(accountId, workflowId);
    const versions = await this.#versions(workflowId);
    const newest = versions.at(-1) ?? null;
    if (version === undefined) return { ...(await this.#live(accountId, workflowId)), stage, version: null, finalized_at: null, newest_version: newest, versions };
    const stored = await this.#stored(workflowId, version);
    if (!stored) throw new ApiError('not_found', `Workflow ${workflowId} has no report version ${version}.`, { param: 'version' });
    return { ...stored.body, stage, version: stored.version, finalized_at: iso(stored.finalized_at), newest_version: newest, versions };
  }

  /** Stores the live report as the next version, settled or not (spec 3). */
  async finalize(accountId: string, workflowId: string): Promise<Report> {
    await this.#accounts.getWorkflow(accountId, workflowId);
    const body = await this.#live(accountId, workflowId);
    // the next number in one statement; two finalizes at once collide on the key and the loser retries
    for (let attempt = 0; ; attempt++) {
      try {
        await this.#db
          .em()
          .getConnection()
          .execute(
            `insert into workflow_reports (workflow_id, account_id, version, body)
             select ?, ?, coalesce(max(version), 0) + 1, ?::jsonb from workflow_reports where workflow_id = ?`,
            [workflowId, accountId, JSON.stringify(body), workflowId],
          );
        break;
      } catch (err) {
        if (attempt >= 3 || !/duplicate key|unique/i.test(String((err as Error).message))) throw err;
      }
    }
    const stored = (await this.#stored(workflowId))!;
    if (this.#inForce.has(workflowId)) await this.reload(); // a production workflow follows its newest lockfile
    return this.report(accountId, workflowId, stored.version);
  }

  /** The lockfile of the newest stored version; 404 before any finalize. */
  async lockfile(accountId: string, workflowId: string): Promise<Lockfile> {
    await this.#accounts.getWorkflow(accountId, workflowId);
    const stored = await this.#stored(workflowId);
    if (!stored) throw new ApiError('not_found', `Workflow ${workflowId} has no finalized report yet: POST /v1/workflows/${workflowId}/report/finalize first.`);
    return lockfileOf(stored.body, stored.version, iso(stored.finalized_at));
  }
}
