// Stage: meter. Prices the call from the catalog in force now, works out the saving,
// and hands the call record and one activity entry per upstream attempt to the
// meter (write-ahead file at once, database in batches).
import type { Meter, ActivityRow, CallRow, EventRow } from '../meter/meter.ts';
import { newId } from '../security/secrets.ts';
import type { Attempt, CallContext, Costs } from './context.ts';
import { costMicros, micros, noUsage, type Usage } from '../wire/usage.ts';
import type { ApiError } from '../errors.ts';
import { recordingRow } from '../capture/recorder.ts';

export interface MeterInput {
  status: number;
  errorCode: string | null;
  usage: Usage;
  latencyMs: number;
  overheadMs: number;
  vendorStatus: number | null;
  /** The answer the client receives (a chat.completion's JSON), for the call's recording. */
  answer?: string | undefined;
}

/** What one upstream attempt cost, from the catalog in force now (micro-dollars). */
export const attemptCost = (a: Attempt): number => micros(costMicros(a.profile, a.usage));

/** What the call spent on learning so far: probe answers and judge grades. */
export function explorationSpend(ctx: CallContext): number {
  return ctx.attempts.filter((a) => a.role !== 'serve').reduce((sum, a) => sum + attemptCost(a), 0);
}

export function priceCall(ctx: CallContext, usage: Usage): Costs {
  const route = ctx.route;
  if (ctx.cacheHit) {
    // a cache hit spends nothing upstream but a judge check of a semantic hit (exploration)
    const checked = explorationSpend(ctx);
    return { baseline: ctx.cacheHit.baselineMicros, served: 0, actual: checked, exploration: checked, saving: ctx.cacheHit.baselineMicros - checked };
  }
  if (!route) return { baseline: 0, served: 0, actual: 0, exploration: 0, saving: 0 };
  const servedAttempt = ctx.served ?? ctx.attempts.findLast((a) => a.role === 'serve' && a.outcome !== 'error');
  const served = servedAttempt ? attemptCost(servedAttempt) : 0;
  const exploration = explorationSpend(ctx);
  const other = ctx.attempts.filter((a) => a.role === 'serve' && a !== servedAttempt).reduce((sum, a) => sum + attemptCost(a), 0);
  const actual = served + exploration + other;
  // What the call would have cost on the pinned or baseline model; unpriced → what it cost.
  const unpruned = ctx.prunedTokens ? { ...usage, promptTokens: usage.promptTokens + ctx.prunedTokens } : usage;
  const baseline = route.baselineProfile ? micros(costMicros(route.baselineProfile, unpruned)) : actual;
  // a model with no price (unlisted, on the tenant's own key or a keyless vendor) says so: its 0 is not a cost
  const unpriced = servedAttempt !== undefined && servedAttempt.profile === undefined;
  return { baseline, served, actual, exploration, saving: baseline - actual, ...(unpriced ? { unpriced: true as const } : {}) };
}

/** Meters a call that failed: its error, no usage, and what its attempts spent. */
export function meterFailure(ctx: CallContext, meter: Meter, e: ApiError, latencyMs: number): void {
  meterCall(ctx, meter, { status: e.status, errorCode: e.code, usage: noUsage, latencyMs, overheadMs: 0, vendorStatus: ctx.attempts.at(-1)?.status ?? null });
}

/**
 * The grades this call produced, for its detail (spec 2.7): the judge's checks of its served
 * answer and the quality gate's verdicts (a failed gate is a served sample scored 0), its
 * probes' grades per model (null: agreed with the baseline's answer), and paired judge
 * grades. Scores only, never an answer's text.
 */
function callGrades(ctx: CallContext) {
  return ctx.evidence.map((e) => {
    const x = e.sample as { policy?: string; score?: number; source?: string; kind?: string; baselineScore?: number | null; answers?: Record<string, { score: number | null }> };
    if (e.kind === 'probe') {
      const scores = Object.fromEntries(Object.entries(x.answers ?? {}).map(([m, a]) => [m, a.score]));
      return { kind: 'probe', policy: x.policy ?? null, baseline_score: x.baselineScore ?? null, scores };
    }
    if (e.kind === 'served') return { kind: 'served', policy: x.policy ?? null, score: x.score ?? null, source: x.source ?? 'judge' };
    return { kind: 'judge', pair: x.kind ?? null };
  });
}

export function meterCall(ctx: CallContext, meter: Meter, m: MeterInput): Costs {
  const costs = priceCall(ctx, m.usage);
  ctx.priced = costs;
  const charged = ctx.settle?.(costs) ?? null; // the charge goes in the call's own line: as durable as the record
  const route = ctx.route;
  const call: CallRow = {
    id: ctx.id,
    account_id: ctx.principal.accountId,
    workflow_id: ctx.principal.workflowId,
    created_at: ctx.receivedAt.toISOString(),
    requested_model: ctx.requestedModel || '(unknown)',
    served_model: route?.model ?? null,
    provider: route?.provider ?? null,
    stream: ctx.stream,
    status: m.status,
    error_code: m.errorCode,
    prompt_tokens: m.usage.promptTokens,
    completion_tokens: m.usage.completionTokens,
    cached_tokens: m.usage.cachedTokens,
    reasoning_tokens: m.usage.reasoningTokens,
    usage_estimated: m.usage.estimated,
    baseline_micros: costs.baseline,
    served_micros: costs.served,
    actual_micros: costs.actual,
    exploration_micros: costs.exploration,
    saving_micros: costs.saving,
    saving_source: ctx.cacheHit ? ctx.cacheHit.source : costs.saving > 0 && route && !route.pinned ? (ctx.optimizer?.policy.includes('@') || (ctx.prunedTokens > 0 && route.model === route.baselineModel) ? 'ttc' : 'routing') : null,
    cache_hit: ctx.cacheHit !== null,
    reasons: route?.reasons ?? [],
    latency_ms: m.latencyMs,
    overhead_ms: m.overheadMs,
    vendor_status: m.vendorStatus,
    idempotency_key: ctx.idempotencyKey,
    detail: { annotation: ctx.annotation ?? null, cache_write_tokens: m.usage.cacheWriteTokens, cache_write_long_tokens: m.usage.cacheWriteLongTokens ?? 0, optimizer: ctx.optimizer, ...(ctx.guard?.findings.length ? { guardrail_findings: ctx.guard.findings } : {}), ...(ctx.evidence.length ? { grades: callGrades(ctx) } : {}), ...(charged ? { billing: charged.billing } : {}) },
  };
  const activity: ActivityRow[] = ctx.attempts.map((a: Attempt, i) => ({
    id: newId('act'),
    call_id: ctx.id,
    account_id: ctx.principal.accountId,
    workflow_id: ctx.principal.workflowId,
    created_at: a.startedAt.toISOString(),
    attempt: i + 1,
    provider: a.provider,
    model: a.model,
    status: a.status,
    outcome: a.role === 'serve' ? a.outcome : `${a.role}:${a.outcome}`,
    latency_ms: a.latencyMs,
    prompt_tokens: a.usage.promptTokens,
    completion_tokens: a.usage.completionTokens,
    cost_micros: attemptCost(a),
  }));
  const events: EventRow[] = ctx.events.map((e) => ({
    id: newId('evt'),
    account_id: ctx.principal.accountId,
    workflow_id: ctx.principal.workflowId,
    kind: e.kind,
    created_at: e.at.toISOString(),
    call_id: ctx.id,
    payload: e.payload,
  }));
  const recording = recordingRow(ctx, call, m.answer);
  meter.record({ calls: [call], activity, events, evidence: ctx.evidence, ...(recording ? { recordings: [recording] } : {}), ...(charged?.ledger.length ? { ledger: charged.ledger } : {}) });
  return costs;
}
