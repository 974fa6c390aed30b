// Read views over metered calls: the curated per-call view, the raw activity
// timeline, and savings totals by source. All tenant-scoped.
import { raw } from '@mikro-orm/postgresql';
import type { Database } from '../db/database.ts';
import { ActivityEntry, CallRecord, Workflow } from '../db/entities.ts';
import { ApiError } from '../errors.ts';
import type { Meter } from '../meter/meter.ts';
import type { CallFilters } from '@optimizer/schema';
import { callAttempts } from './call-attempts.ts';
import { callConditions } from './call-filters.ts';
import { reasonFields } from './call-reasons.ts';

const usd = (m: number) => Math.round(m) / 1e6;

/** What the call's learning after its answer did (meter-call.ts, meterLearning), once it ended. */
interface LearningDetail {
  attempts?: number;
  grades?: unknown[];
  reasons?: string[];
  charge_micros?: number;
}

const learningOf = (detail: Record<string, unknown> | null | undefined) => (detail?.learning ?? null) as LearningDetail | null;

/**
 * What billing charged the call (billing/budget.ts), in USD: vendor cost on the platform's keys
 * (its learning's included, once metered), and the fee.
 */
function chargeOf(detail: Record<string, unknown> | null | undefined, learning: LearningDetail | null): { usage: number; fee: number } | null {
  const b = detail?.billing as { usage_micros?: number; fee_micros?: number } | undefined;
  return b ? { usage: usd((b.usage_micros ?? 0) + (learning?.charge_micros ?? 0)), fee: usd(b.fee_micros ?? 0) } : null;
}

/** What the optimizer decided for the call when it was routed (pipeline/plan-routed.ts). */
interface OptimizerDetail {
  fingerprint: string;
  step: string;
  policy: string;
  settled: boolean;
  baseline: string;
  floor: number;
}

export function callView(r: CallRecord) {
  const learning = learningOf(r.detail);
  const opt = (r.detail?.optimizer ?? null) as OptimizerDetail | null;
  const annotation = (r.detail?.annotation ?? null) as { run?: { id?: string } } | null;
  const reasons = [...r.reasons, ...(learning?.reasons ?? [])];
  return {
    id: r.id,
    created_at: r.createdAt.toISOString(),
    agent: r.workflowId,
    step: opt?.step ?? null,
    fingerprint: opt?.fingerprint ?? null,
    run: annotation?.run?.id ?? null,
    model: r.requestedModel,
    routed_model: r.servedModel,
    provider: r.provider,
    stream: r.stream,
    status: r.status,
    error_code: r.errorCode,
    usage: {
      prompt_tokens: r.promptTokens,
      completion_tokens: r.completionTokens,
      cached_tokens: r.cachedTokens,
      reasoning_tokens: r.reasoningTokens,
      estimated: r.usageEstimated,
    },
    cost: {
      baseline: usd(r.baselineMicros),
      served: usd(r.servedMicros),
      actual: usd(r.actualMicros),
      exploration: usd(r.explorationMicros),
    },
    saving: usd(r.savingMicros),
    saving_source: r.savingSource,
    charge: chargeOf(r.detail, learning),
    cache: { hit: r.cacheHit },
    reasons,
    why: reasons.map(reasonFields),
    policy: opt ? { key: opt.policy, settled: opt.settled, baseline_model: opt.baseline, quality_bar: opt.floor } : null,
    grades: [...((r.detail as { grades?: unknown[] } | null)?.grades ?? []), ...(learning?.grades ?? [])] as unknown[],
    guardrail_findings: ((r.detail as { guardrail_findings?: unknown[] } | null)?.guardrail_findings ?? []) as unknown[],
    latency_ms: r.latencyMs,
    overhead_ms: r.overheadMs,
    vendor_status: r.vendorStatus,
  };
}

/** The dashboard's savings: the running totals the meter keeps (migration 0008), one tenant's rows. */
export const SAVINGS_TOTALS = `select coalesce(sum(calls),0)::float8 as calls, coalesce(sum(baseline_micros),0)::bigint as baseline,
       coalesce(sum(actual_micros),0)::bigint as actual, coalesce(sum(saving_micros),0)::bigint as saving
  from call_totals where account_id = ?`;
export const SAVINGS_BY_SOURCE = `select saving_source as source, coalesce(sum(saving_micros),0)::bigint as saving
  from call_totals where account_id = ? and saving_source <> '' group by saving_source`;

export class CallViews {
  readonly #db: Database;
  readonly #meter: Meter;

  constructor(db: Database, meter: Meter) {
    this.#db = db;
    this.#meter = meter;
  }

  /** Newest first; `starting_after` (a call of the tenant's) pages on: the calls older than it, in the same order. */
  async calls(accountId: string, q: Partial<CallFilters> & { limit: number; starting_after?: string | undefined }) {
    await this.#meter.flush(); // read your own writes on this replica
    const em = this.#db.em();
    if (q.agent && !(await em.count(Workflow, { id: q.agent, accountId }))) throw new ApiError('not_found', `No agent ${q.agent}.`, { param: 'agent' });
    if (q.starting_after && !(await em.count(CallRecord, { id: q.starting_after, accountId }))) throw new ApiError('not_found', `No call ${q.starting_after}.`, { param: 'starting_after' });
    // (created_at, id) compared in SQL against the stored row: its time to the microsecond, one index range
    const after = q.starting_after
      ? { [raw((a) => `(${a}.created_at, ${a}.id) < (select c.created_at, c.id from call_records c where c.account_id = ? and c.id = ?)`, [accountId, q.starting_after])]: [] }
      : {};
    const rows = await em.find(CallRecord, { accountId, ...callConditions(q), ...after }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: q.limit });
    return rows.map(callView);
  }

  /** One call of the tenant's by its id, with its attempts; 404 when there is none (another tenant's included). */
  async call(accountId: string, id: string) {
    await this.#meter.flush(); // read your own writes on this replica
    const row = await this.#db.em().findOne(CallRecord, { id, accountId });
    if (!row) throw new ApiError('not_found', `No call ${id}.`, { param: 'id' });
    const view = callView(row);
    return { ...view, attempts: await callAttempts(this.#db, row, view.reasons) };
  }

  async activity(accountId: string, limit: number) {
    await this.#meter.flush();
    const rows = await this.#db.em().find(ActivityEntry, { accountId }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit });
    return rows.map((a) => ({
      id: a.id,
      call_id: a.callId,
      agent: a.workflowId,
      at: a.createdAt.toISOString(),
      attempt: a.attempt,
      provider: a.provider,
      model: a.model,
      status: a.status,
      outcome: a.outcome,
      latency_ms: a.latencyMs,
      prompt_tokens: a.promptTokens,
      completion_tokens: a.completionTokens,
      cost: usd(a.costMicros),
    }));
  }

  async savings(accountId: string) {
    await this.#meter.flush();
    const conn = this.#db.em().getConnection();
    // running totals the meter keeps with each batch (migration 0008), not a sum over every call
    const [t] = (await conn.execute(SAVINGS_TOTALS, [accountId])) as { calls: number; baseline: string; actual: string; saving: string }[];
    const bySource = (await conn.execute(SAVINGS_BY_SOURCE, [accountId])) as { source: string; saving: string }[];
    const sources = { cache: 0, routing: 0, ttc: 0, trace: 0 } as Record<string, number>;
    for (const r of bySource) sources[r.source] = usd(Number(r.saving));
    return { calls: t!.calls, baseline_cost: usd(Number(t!.baseline)), actual_cost: usd(Number(t!.actual)), saving: usd(Number(t!.saving)), by_source: sources };
  }
}
