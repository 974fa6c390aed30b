// Stage: meter. Prices the call from the catalog in force now, works out the saving,
// and hands the call record and one activity entry per upstream attempt to the
// meter (write-ahead file at once, database in batches).
import type { Meter, ActivityRow, CallRow, EventRow } from '../meter/meter.ts';
import { newId } from '../security/secrets.ts';
import type { Attempt, CallContext, Costs } from './context.ts';
import { costMicros, micros, type Usage } from './pricing.ts';

export interface MeterInput {
  status: number;
  errorCode: string | null;
  usage: Usage;
  latencyMs: number;
  overheadMs: number;
  vendorStatus: number | null;
}

export function priceCall(ctx: CallContext, usage: Usage): Costs {
  const route = ctx.route;
  if (!route) return { baseline: 0, served: 0, actual: 0, exploration: 0, saving: 0 };
  const served = micros(costMicros(route.profile, usage));
  const servedAttempt = ctx.attempts.findLast((a) => a.outcome !== 'error');
  const failed = ctx.attempts.filter((a) => a !== servedAttempt).reduce((sum, a) => sum + micros(costMicros(a.profile, a.usage)), 0);
  const exploration = 0;
  const actual = served + exploration + failed;
  // What the call would have cost on the pinned or baseline model; unpriced → what it cost.
  const baseline = route.baselineProfile ? micros(costMicros(route.baselineProfile, usage)) : actual;
  return { baseline, served, actual, exploration, saving: baseline - actual };
}

export function meterCall(ctx: CallContext, meter: Meter, m: MeterInput): Costs {
  const costs = priceCall(ctx, m.usage);
  const route = ctx.route;
  const call: CallRow = {
    id: ctx.id,
    accountId: ctx.principal.accountId,
    workflowId: ctx.principal.workflowId,
    createdAt: ctx.receivedAt,
    requestedModel: ctx.requestedModel || '(unknown)',
    servedModel: route?.model ?? null,
    provider: route?.provider ?? null,
    stream: ctx.stream,
    status: m.status,
    errorCode: m.errorCode,
    promptTokens: m.usage.promptTokens,
    completionTokens: m.usage.completionTokens,
    cachedTokens: m.usage.cachedTokens,
    reasoningTokens: m.usage.reasoningTokens,
    usageEstimated: m.usage.estimated,
    baselineMicros: costs.baseline,
    servedMicros: costs.served,
    actualMicros: costs.actual,
    explorationMicros: costs.exploration,
    savingMicros: costs.saving,
    savingSource: costs.saving > 0 && route && !route.pinned ? 'routing' : null,
    cacheHit: false,
    reasons: route?.reasons ?? [],
    latencyMs: m.latencyMs,
    overheadMs: m.overheadMs,
    vendorStatus: m.vendorStatus,
    idempotencyKey: ctx.idempotencyKey,
    detail: { annotation: ctx.annotation ?? null, cache_write_tokens: m.usage.cacheWriteTokens },
  };
  const activity: ActivityRow[] = ctx.attempts.map((a: Attempt, i) => ({
    id: newId('act'),
    callId: ctx.id,
    accountId: ctx.principal.accountId,
    workflowId: ctx.principal.workflowId,
    createdAt: a.startedAt,
    attempt: i + 1,
    provider: a.provider,
    model: a.model,
    status: a.status,
    outcome: a.outcome,
    latencyMs: a.latencyMs,
    promptTokens: a.usage.promptTokens,
    completionTokens: a.usage.completionTokens,
    costMicros: micros(costMicros(a.profile, a.usage)),
  }));
  const events: EventRow[] = ctx.events.map((e) => ({
    id: newId('evt'),
    accountId: ctx.principal.accountId,
    workflowId: ctx.principal.workflowId,
    kind: e.kind,
    createdAt: e.at,
    callId: ctx.id,
    payload: e.payload,
  }));
  meter.record(call, activity, events);
  return costs;
}
