// Calls, activity and savings for the tenant over GraphQL: REST's fields, camelCased.
import { activityQuery, callRef, callsQuery, savingsSeriesQuery } from '@optimizer/schema';
import { getCall, listActivity, listCalls, savings, savingsSeries } from '../../domain/calls.ts';
import type { SavingsSeries, SeriesPoint } from '../../reporting/savings-series.ts';
import type { callView } from '../../reporting/calls.ts';
import { type Builder, capability, reader } from '../builder.ts';

export function registerCalls(builder: Builder) {
  type CallView = ReturnType<typeof callView>;
  type ActivityView = Awaited<ReturnType<typeof listActivity>>[number];
  type SavingsView = Awaited<ReturnType<typeof savings>>;

  const CallUsage = builder.objectRef<CallView['usage']>('CallUsage').implement({
    fields: (t) => ({
      promptTokens: t.exposeInt('prompt_tokens'),
      completionTokens: t.exposeInt('completion_tokens'),
      cachedTokens: t.exposeInt('cached_tokens'),
      reasoningTokens: t.exposeInt('reasoning_tokens'),
      estimated: t.exposeBoolean('estimated', { description: 'Counted by the gateway because the vendor reported no usage.' }),
    }),
  });

  const CallCost = builder.objectRef<CallView['cost']>('CallCost').implement({
    description: 'USD.',
    fields: (t) => ({
      baseline: t.exposeFloat('baseline', { description: 'What the baseline model would have cost.' }),
      served: t.exposeFloat('served'),
      actual: t.exposeFloat('actual', { description: 'What the tenant pays: served plus exploration.' }),
      exploration: t.exposeFloat('exploration'),
    }),
  });

  const CallCharge = builder.objectRef<NonNullable<CallView['charge']>>('CallCharge').implement({
    description: 'What billing charged the call, USD: vendor cost on the platform\'s keys (usage), and the fee.',
    fields: (t) => ({
      usage: t.exposeFloat('usage'),
      fee: t.exposeFloat('fee'),
    }),
  });

  const CallCache = builder.objectRef<CallView['cache']>('CallCache').implement({
    fields: (t) => ({ hit: t.exposeBoolean('hit') }),
  });

  interface FindingView {
    type: string;
    kind: string;
    count: number;
    action: string;
  }

  const GuardrailFinding = builder.objectRef<FindingView>('GuardrailFinding').implement({
    description: 'What the guard found in the call: a kind and how many, never the value.',
    fields: (t) => ({
      type: t.exposeString('type', { description: '`pii` or `injection`.' }),
      kind: t.exposeString('kind', { description: 'The PII kind (`email`, `card`, …) or the injection pattern.' }),
      count: t.exposeInt('count'),
      action: t.exposeString('action', { description: '`redacted`, `flagged` or `blocked`.' }),
    }),
  });

  const Call = builder.objectRef<CallView>('Call').implement({
    description: 'One metered call (the curated per-call view of GET /v1/calls).',
    fields: (t) => ({
      id: t.exposeString('id'),
      createdAt: t.exposeString('created_at'),
      agent: t.exposeString('agent'),
      model: t.exposeString('model', { description: 'The model the client asked for.' }),
      routedModel: t.exposeString('routed_model', { nullable: true }),
      provider: t.exposeString('provider', { nullable: true }),
      stream: t.exposeBoolean('stream'),
      status: t.exposeInt('status'),
      errorCode: t.exposeString('error_code', { nullable: true }),
      usage: t.field({ type: CallUsage, resolve: (c) => c.usage }),
      cost: t.field({ type: CallCost, resolve: (c) => c.cost }),
      saving: t.exposeFloat('saving'),
      savingSource: t.exposeString('saving_source', { nullable: true }),
      cache: t.field({ type: CallCache, resolve: (c) => c.cache }),
      charge: t.field({ type: CallCharge, nullable: true, resolve: (c) => c.charge }),
      reasons: t.exposeStringList('reasons'),
      grades: t.field({ type: ['JSON'], description: 'The judge grades and gate results that concern the call (scores only).', resolve: (c) => c.grades }),
      guardrailFindings: t.field({ type: [GuardrailFinding], resolve: (c) => c.guardrail_findings as FindingView[] }),
      latencyMs: t.float({ resolve: (c) => Number(c.latency_ms) }),
      overheadMs: t.float({ resolve: (c) => Number(c.overhead_ms) }),
      vendorStatus: t.exposeInt('vendor_status', { nullable: true }),
      recording: t.field({
        type: 'JSON',
        nullable: true,
        description: "The call's recording (request and stored response) where capture settings kept one; on a step's calls only.",
        resolve: (c) => (c as CallView & { recording?: unknown }).recording ?? null,
      }),
    }),
  });

  const Activity = builder.objectRef<ActivityView>('ActivityEntry').implement({
    description: 'One attempt at a vendor (the raw timeline of GET /v1/activity).',
    fields: (t) => ({
      id: t.exposeString('id'),
      callId: t.exposeString('call_id'),
      agent: t.exposeString('agent'),
      at: t.exposeString('at'),
      attempt: t.exposeInt('attempt'),
      provider: t.exposeString('provider'),
      model: t.exposeString('model'),
      status: t.exposeInt('status', { nullable: true }),
      outcome: t.exposeString('outcome'),
      latencyMs: t.float({ resolve: (c) => Number(c.latency_ms) }),
      promptTokens: t.exposeInt('prompt_tokens'),
      completionTokens: t.exposeInt('completion_tokens'),
      cost: t.exposeFloat('cost'),
    }),
  });

  const SavingsBySource = builder.objectRef<SavingsView['by_source']>('SavingsBySource').implement({
    description: 'USD saved, by what saved it.',
    fields: (t) => ({
      cache: t.float({ resolve: (s) => s.cache ?? 0 }),
      routing: t.float({ resolve: (s) => s.routing ?? 0 }),
      ttc: t.float({ resolve: (s) => s.ttc ?? 0 }),
      trace: t.float({ resolve: (s) => s.trace ?? 0 }),
    }),
  });

  const Savings = builder.objectRef<SavingsView>('Savings').implement({
    fields: (t) => ({
      calls: t.exposeFloat('calls'),
      baselineCost: t.exposeFloat('baseline_cost'),
      actualCost: t.exposeFloat('actual_cost'),
      saving: t.exposeFloat('saving'),
      bySource: t.field({ type: SavingsBySource, resolve: (s) => s.by_source }),
    }),
  });

  const SavingsPoint = builder.objectRef<SeriesPoint>('SavingsPoint').implement({
    description: 'One bucket of the savings series (USD).',
    fields: (t) => ({
      at: t.exposeString('at', { description: 'Start of the bucket (ISO 8601).' }),
      calls: t.exposeInt('calls'),
      baselineCost: t.exposeFloat('baseline_cost'),
      actualCost: t.exposeFloat('actual_cost'),
      saving: t.exposeFloat('saving'),
      bySource: t.field({ type: SavingsBySource, resolve: (p) => p.by_source }),
    }),
  });

  const SavingsSeriesRef = builder.objectRef<SavingsSeries>('SavingsSeries').implement({
    fields: (t) => ({
      bucketSeconds: t.exposeInt('bucket_seconds'),
      points: t.field({ type: [SavingsPoint], resolve: (s) => s.points }),
    }),
  });

  builder.queryFields((t) => ({
    savingsSeries: t.field({
      type: SavingsSeriesRef,
      description: 'Savings over the last `days`, in buckets of equal width from the first call to the last.',
      args: { days: t.arg.int(), points: t.arg.int() },
      resolve: capability(savingsSeriesQuery, savingsSeries),
    }),
    calls: t.field({
      type: [Call],
      description: 'Metered calls, newest first; `agent` narrows to one workflow; `startingAfter` (the last call id of a page) reads the next page.',
      args: { agent: t.arg.string(), limit: t.arg.int(), startingAfter: t.arg.string() },
      resolve: capability(callsQuery, listCalls),
    }),
    call: t.field({
      type: Call,
      description: 'One call by its id (the `x-optimizer-call-id` header of its answer).',
      args: { id: t.arg.string({ required: true }) },
      resolve: capability(callRef, getCall),
    }),
    activity: t.field({ type: [Activity], args: { limit: t.arg.int() }, resolve: capability(activityQuery, listActivity) }),
    savings: t.field({ type: Savings, resolve: reader(savings) }),
  }));
  return { Call };
}
