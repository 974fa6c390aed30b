// The meter exit. Every outcome a pipeline's runner ends with passes through `meterOutcome`
// once: it prices the call from the catalog in force now, works out the saving, settles the
// budget's reservation (the ledger legs) and hands the call record and one activity entry per
// upstream attempt to the meter (write-ahead file at once, database in batches). `meterCall`
// is the one writer of call records in the code base (one-meter-exit.test.ts holds it so);
// what a call learns after its answer is not a call record (`meterLearning`, recordLearning).
import type { Meter, ActivityRow, CallRow, EventRow, LedgerRow } from '../meter/meter.ts';
import type { LearningRow } from '../meter/rows.ts';
import { newId } from '../security/secrets.ts';
import type { Attempt, CallContext, Costs } from './context.ts';
import { costMicros, micros, noUsage, type Usage } from '../wire/usage.ts';
import type { Outcome } from './outcome.ts';
import { recordingRow } from './capture-stage.ts';

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

/** What the record of an outcome says (status, usage, timings); `elapsedMs` is the call's time so far. */
export function meterInput(ctx: CallContext, outcome: Exclude<Outcome, { kind: 'refused' | 'replayed' }>, elapsedMs: number): MeterInput {
  switch (outcome.kind) {
    case 'served':
      return { status: 200, errorCode: null, usage: outcome.usage, latencyMs: elapsedMs, overheadMs: Math.max(0, elapsedMs - outcome.upstreamMs), vendorStatus: outcome.vendorStatus, answer: outcome.text };
    case 'cache-hit': {
      const usage = { ...noUsage, promptTokens: outcome.answer.promptTokens, completionTokens: outcome.answer.completionTokens };
      return { status: 200, errorCode: null, usage, latencyMs: elapsedMs, overheadMs: elapsedMs, vendorStatus: ctx.stream ? null : 200, answer: outcome.answer.text };
    }
    case 'streamed':
      return { status: outcome.status, errorCode: outcome.errorCode, usage: outcome.usage, latencyMs: elapsedMs, overheadMs: outcome.overheadMs, vendorStatus: outcome.vendorStatus, answer: outcome.assembled ?? undefined };
    case 'failed':
      // its error, no usage, and what its attempts spent
      return { status: outcome.error.status, errorCode: outcome.error.code, usage: noUsage, latencyMs: elapsedMs, overheadMs: 0, vendorStatus: ctx.attempts.at(-1)?.status ?? null };
  }
}

/**
 * The meter exit: records an outcome once (a refusal or a replay is no call: null). Returns
 * what it cost and the record's input (its overhead goes in the answer's headers).
 */
export function meterOutcome(ctx: CallContext, meter: Meter, outcome: Outcome, elapsedMs: number): { costs: Costs; input: MeterInput } | null {
  if (outcome.kind === 'refused' || outcome.kind === 'replayed') return null;
  const input = meterInput(ctx, outcome, elapsedMs);
  return { costs: meterCall(ctx, meter, input), input };
}

/**
 * The grades this call produced, for its detail (spec 2.7): the judge's checks of its served
 * answer and the quality gate's verdicts (a failed gate is a served sample scored 0), its
 * probes' grades per model (null: agreed with the baseline's answer), and paired judge
 * grades. Scores only, never an answer's text.
 */
function callGrades(evidence: CallContext['evidence']) {
  return evidence.map((e) => {
    const x = e.sample as { policy?: string; score?: number; source?: string; kind?: string; baselineScore?: number | null; answers?: Record<string, { score: number | null }> };
    if (e.kind === 'probe') {
      const scores = Object.fromEntries(Object.entries(x.answers ?? {}).map(([m, a]) => [m, a.score]));
      return { kind: 'probe', policy: x.policy ?? null, baseline_score: x.baselineScore ?? null, scores };
    }
    if (e.kind === 'served') return { kind: 'served', policy: x.policy ?? null, score: x.score ?? null, source: x.source ?? 'judge' };
    return { kind: 'judge', pair: x.kind ?? null };
  });
}

/** One activity row per upstream attempt; `first` is the index of the first one among the call's attempts. */
function activityRows(ctx: CallContext, attempts: readonly Attempt[], first: number): ActivityRow[] {
  return attempts.map((a, i) => ({
    id: newId('act'),
    call_id: ctx.id,
    account_id: ctx.principal.accountId,
    workflow_id: ctx.principal.workflowId,
    created_at: a.startedAt.toISOString(),
    attempt: first + i + 1,
    provider: a.provider,
    model: a.model,
    status: a.status,
    outcome: a.role === 'serve' ? a.outcome : `${a.role}:${a.outcome}`,
    latency_ms: a.latencyMs,
    prompt_tokens: a.usage.promptTokens,
    completion_tokens: a.usage.completionTokens,
    cost_micros: attemptCost(a),
  }));
}

function eventRows(ctx: CallContext, events: CallContext['events']): EventRow[] {
  return events.map((e) => ({
    id: newId('evt'),
    account_id: ctx.principal.accountId,
    workflow_id: ctx.principal.workflowId,
    kind: e.kind,
    created_at: e.at.toISOString(),
    call_id: ctx.id,
    payload: e.payload,
  }));
}

/** Writes one call's record, its activity, events, evidence, recording and ledger legs: the only call-record writer. */
function meterCall(ctx: CallContext, meter: Meter, m: MeterInput): Costs {
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
    detail: { annotation: ctx.annotation ?? null, cache_write_tokens: m.usage.cacheWriteTokens, cache_write_long_tokens: m.usage.cacheWriteLongTokens ?? 0, optimizer: ctx.optimizer, ...(ctx.guard?.findings.length ? { guardrail_findings: ctx.guard.findings } : {}), ...(ctx.evidence.length ? { grades: callGrades(ctx.evidence) } : {}), ...(charged ? { billing: charged.billing } : {}) },
  };
  const activity = activityRows(ctx, ctx.attempts, 0);
  const events = eventRows(ctx, ctx.events);
  const recording = recordingRow(ctx, call, m.answer);
  meter.record({ calls: [call], activity, events, evidence: ctx.evidence, ...(recording ? { recordings: [recording] } : {}), ...(charged?.ledger.length ? { ledger: charged.ledger } : {}) });
  return costs;
}

/** Where a call's learning began: what it had recorded when its answer was metered. */
export interface LearningMark {
  attempts: number;
  evidence: number;
  events: number;
  reasons: number;
}

export const learningMark = (ctx: CallContext): LearningMark => ({ attempts: ctx.attempts.length, evidence: ctx.evidence.length, events: ctx.events.length, reasons: ctx.route?.reasons.length ?? 0 });

/**
 * Meters what a call's learning did after its answer (learn.ts), in a line of its own: its
 * attempts, the evidence and events it produced, the charge settled on the reservation set
 * apart for it, and a learning row the meter applies once to the call's record (its
 * exploration, actual cost and saving) and running totals. Returns what it spent.
 */
export function meterLearning(ctx: CallContext, meter: Meter, mark: LearningMark, settle: (spent: number, platform: number) => LedgerRow[]): number {
  const attempts = ctx.attempts.slice(mark.attempts);
  const spent = attempts.reduce((sum, a) => sum + attemptCost(a), 0);
  const platform = attempts.filter((a) => a.paidBy === 'platform').reduce((sum, a) => sum + attemptCost(a), 0);
  const ledger = settle(spent, platform);
  const charged = ledger.filter((l) => l.book === 'revenue').reduce((sum, l) => sum + l.amount_micros, 0);
  const evidence = ctx.evidence.slice(mark.evidence);
  const reasons = ctx.route?.reasons.slice(mark.reasons) ?? [];
  const learning: LearningRow[] =
    attempts.length > 0 || evidence.length > 0
      ? [
          {
            id: ctx.id,
            call_created_at: ctx.receivedAt.toISOString(),
            account_id: ctx.principal.accountId,
            workflow_id: ctx.principal.workflowId,
            created_at: new Date().toISOString(),
            exploration_micros: spent,
            detail: { attempts: attempts.length, charge_micros: charged, ...(evidence.length ? { grades: callGrades(evidence) } : {}), ...(reasons.length ? { reasons } : {}) },
            applied: false,
          },
        ]
      : [];
  if (learning.length === 0 && ledger.length === 0) return 0;
  meter.recordLearning({ activity: activityRows(ctx, attempts, mark.attempts), events: eventRows(ctx, ctx.events.slice(mark.events)), evidence, learning, ...(ledger.length ? { ledger } : {}) });
  return spent;
}
