// What the calls capabilities answer: a metered call (the curated per-call view), a vendor
// attempt of the raw timeline, and the savings totals and series (USD).
import { z } from 'zod';
import { asFloat, asJson, named, time } from '../shapes.ts';
import { Recording } from './recordings.ts';

const int = () => z.number().int();
const usd = () => z.number();

const CallUsage = named(
  'CallUsage',
  z.object({
    prompt_tokens: int(),
    completion_tokens: int(),
    cached_tokens: int(),
    reasoning_tokens: int(),
    estimated: z.boolean().describe('Counted by the gateway because the vendor reported no usage.'),
  }),
);

const CallCost = named(
  'CallCost',
  z
    .object({
      baseline: usd().describe('What the baseline model would have cost.'),
      served: usd(),
      actual: usd().describe('What the tenant pays: served plus exploration.'),
      exploration: usd(),
    })
    .describe('USD.'),
);

const CallCharge = named('CallCharge', z.object({ usage: usd(), fee: usd() }).describe("What billing charged the call, USD: vendor cost on the platform's keys (usage), and the fee."));

const CallCache = named('CallCache', z.object({ hit: z.boolean() }));

const GuardrailFinding = named(
  'GuardrailFinding',
  z
    .looseObject({
      type: z.string().describe('`pii` or `injection`.'),
      kind: z.string().describe('The PII kind (`email`, `card`, …) or the injection pattern.'),
      count: int(),
      action: z.string().describe('`redacted`, `flagged` or `blocked`.'),
    })
    .describe('What the guard found in the call: a kind and how many, never the value.'),
);

const CallReason = named(
  'CallReason',
  z
    .object({
      kind: z
        .enum(['decision', 'baseline', 'unproven', 'exploration', 'bar', 'pinned', 'failover', 'cache', 'pruning', 'check', 'tier', 'mode', 'note'])
        .describe('What the reason is about: `decision` (a cheaper policy serves), `baseline` (the baseline serves), `unproven`, `exploration`, `bar`, `pinned`, `failover`, `cache`, `pruning`, `check`, `tier`, `mode`, or `note`.'),
      summary: z.string().describe('The reason as the gateway wrote it.'),
      policy: z.string().nullable().describe('The policy or model it names.'),
      bound: z.number().nullable().describe("The lower bound of the retention the policy held: a share of the baseline's quality."),
      bar: z.number().nullable().describe('The quality bar it was held against.'),
      samples: int().nullable().describe('Samples behind the bound.'),
      others: z.array(z.string()).describe('Other policies or models it names (cheaper but unproven ones, the model failed over from).'),
    })
    .describe("One of a call's reasons as fields, its text kept as the summary."),
);

const CallPolicy = named(
  'CallPolicy',
  z
    .object({
      key: z.string().describe('The policy that served (`model:…`, `gate:…`, `verify:…`, `cache:…`).'),
      settled: z.boolean().describe('Whether the step had settled on it.'),
      baseline_model: z.string(),
      quality_bar: z.number().describe("The step's quality bar for the call (a share of the baseline's quality)."),
    })
    .describe('What the optimizer decided for a routed call, when it was made.'),
);

const CallAttempt = named(
  'CallAttempt',
  z
    .object({
      attempt: int(),
      role: z.string().describe('`serve` (the answer), `probe` (a cheaper model tried beside it) or `judge` (a grade).'),
      vendor: z.string(),
      model: z.string(),
      status: int().nullable(),
      outcome: z.string().describe('`ok`, `error` or `cancelled`.'),
      latency_ms: z.number(),
      prompt_tokens: int(),
      completion_tokens: int(),
      cost: usd(),
      error: z.string().nullable().describe('Why it failed: its status and, where one names it, the failover reason.'),
    })
    .describe('One attempt of the call at a vendor.'),
);

export const Call = named(
  'Call',
  z
    .object({
      id: z.string(),
      created_at: time(),
      agent: z.string(),
      step: z.string().nullable().describe("The step's label (routed calls)."),
      fingerprint: z.string().nullable().describe("The step's fingerprint (routed calls)."),
      run: z.string().nullable().describe("The annotation's `run.id`."),
      model: z.string().describe('The model the client asked for.'),
      routed_model: z.string().nullable(),
      provider: z.string().nullable(),
      stream: z.boolean(),
      status: int(),
      error_code: z.string().nullable(),
      usage: CallUsage,
      cost: CallCost,
      saving: usd(),
      saving_source: z.string().nullable(),
      cache: CallCache,
      charge: CallCharge.nullable(),
      reasons: z.array(z.string()),
      why: z.array(CallReason).describe('The reasons as fields, each with its text as the summary.'),
      policy: CallPolicy.nullable(),
      grades: z.array(asJson(z.looseObject({}).describe('A judge or validation grade.'))).describe('The judge grades and gate results that concern the call (scores only).'),
      guardrail_findings: z.array(GuardrailFinding),
      latency_ms: z.number(),
      overhead_ms: z.number(),
      vendor_status: int().nullable(),
      recording: asJson(Recording.nullable())
        .optional()
        .describe("The call's recording (request and stored response) where capture settings kept one; on a step's calls only."),
      attempts: z.array(CallAttempt).optional().describe('Every attempt at a vendor, probes and judge grades included; on one call read by its id only.'),
    })
    .describe('One metered call (the curated per-call view of GET /v1/calls).'),
);

export const ActivityEntry = named(
  'ActivityEntry',
  z
    .object({
      id: z.string(),
      call_id: z.string(),
      agent: z.string(),
      at: time(),
      attempt: int(),
      provider: z.string(),
      model: z.string(),
      status: int().nullable(),
      outcome: z.string(),
      latency_ms: z.number(),
      prompt_tokens: int(),
      completion_tokens: int(),
      cost: usd(),
    })
    .describe('One attempt at a vendor (the raw timeline of GET /v1/activity).'),
);

const SavingsBySource = named('SavingsBySource', z.object({ cache: usd(), routing: usd(), ttc: usd(), trace: usd() }).describe('USD saved, by what saved it.'));

export const Savings = named(
  'Savings',
  z.object({
    calls: asFloat(int()),
    baseline_cost: usd(),
    actual_cost: usd(),
    saving: usd(),
    by_source: SavingsBySource,
  }),
);

const SavingsPoint = named(
  'SavingsPoint',
  z
    .object({
      at: time().describe('Start of the bucket (ISO 8601).'),
      calls: int(),
      baseline_cost: usd(),
      actual_cost: usd(),
      saving: usd(),
      by_source: SavingsBySource,
    })
    .describe('One bucket of the savings series (USD).'),
);

export const SavingsSeries = named('SavingsSeries', z.object({ bucket_seconds: int(), points: z.array(SavingsPoint) }));
