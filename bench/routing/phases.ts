// Sends a phase's rows through the gateway with the typed SDK (model "auto", one run per row,
// the row's step as the step), scores each served answer from the recording, and reports a
// sampled share of those scores as outcomes: the gateway learns only through these public calls.
import { OptimizerClient, isOptimizerError, type OptimizedChatCompletion } from '@optimizer/sdk';
import { callCost, rowCost, type Models, type Row } from './data.ts';
import { modelWithText } from './judge.ts';
import { drawFor, hash32, mulberry32, shuffled } from './prng.ts';
import type { ReplayVendor } from './replay-vendor.ts';

export type PhaseName = 'train' | 'test';

export interface CallRecord {
  phase: PhaseName;
  rowId: string;
  step: string;
  /** The model the gateway says it served (x-optimizer-model, else the response's `model`); null on error. */
  served: string | null;
  /** The policy key of x-optimizer-trial: the call was served by an unproven policy to learn it; null otherwise. */
  trial: string | null;
  /** The policy that served the call (x-optimizer-policy: a gate, a mix's side, a trial), which its outcome counts for; null when not routed. */
  policy: string | null;
  /** Served answer's recorded score (0 on error or when its text matches no recording). */
  score: number;
  /** The baseline's recorded score on the row. */
  baselineScore: number;
  /** The served text matched no model's recorded text. */
  unmatched: boolean;
  /** From the response's `optimizer` block (0 on error). */
  baseline_cost: number;
  actual_cost: number;
  exploration_cost: number;
  cache_hit: boolean;
  /** Recorded cost of the served model's answer and of the baseline's (usage × price). */
  replay_cost: number;
  /**
   * Everything the vendor was paid for this row's call, priced from the recording: the served
   * answer, gate partners, escalations, and what its learning spent after the answer (probes,
   * the baseline's shadow, judge calls). Filled in once the gateway is quiet (vendorSpend).
   */
  vendor_cost: number;
  replay_baseline_cost: number;
  /** Outcome reported for this call. */
  reported: boolean;
  error: string | null;
  /** Sent after the --drift degradation. */
  afterDrift: boolean;
}

export interface PhaseContext {
  gatewayOrigin: string;
  apiKey: string;
  models: Models;
  vendor: ReplayVendor;
  seed: number;
  outcomeRate: number;
  /** Send every completion with `stream: true` (default false). */
  stream?: boolean;
  concurrency: number;
  /** Epoch ms after which no new call is sent. */
  deadline: number;
  /** Awaited after each answer, before its outcome is reported (--reproducible): the gateway has learned what the call taught. */
  settle?: () => Promise<void>;
  /** Shared across phases: flips to 'not-built' on the first 404 from POST /v1/outcomes. */
  outcomes: { state: 'unknown' | 'ok' | 'not-built'; sent: number; errors: number; lastError: string | null };
  log: (line: string) => void;
}

export interface PhaseRun {
  records: CallRecord[];
  /** Rows not sent because the time budget ran out. */
  skipped: number;
}

/** Each step's rows shuffled, the steps in a shuffled order, then round-robin over the steps. */
export function interleave(rows: readonly Row[], seed: number, phase: string): Row[] {
  const rand = mulberry32(hash32(`${seed}|order|${phase}`));
  const byStep = new Map<string, Row[]>();
  for (const r of rows) byStep.set(r.step, [...(byStep.get(r.step) ?? []), r]);
  const queues = shuffled([...byStep.keys()].sort(), rand).map((s) => shuffled(byStep.get(s)!, rand));
  const out: Row[] = [];
  for (let i = 0; out.length < rows.length; i++) for (const q of queues) if (i < q.length) out.push(q[i]!);
  return out;
}

/** Sends `rows` in order with at most ctx.concurrency in flight. */
export async function runPhase(phase: PhaseName, rows: readonly Row[], ctx: PhaseContext, opts: { afterDrift?: boolean; label?: string } = {}): Promise<PhaseRun> {
  // One client for the phase: completions (streamed or not) and outcome reports.
  const client = new OptimizerClient({ baseURL: ctx.gatewayOrigin, apiKey: ctx.apiKey });
  const records: CallRecord[] = new Array<CallRecord>(rows.length);
  let next = 0;
  let done = 0;
  let skipped = 0;
  let failures = 0;
  let firstError: string | null = null;
  const label = opts.label ?? phase;
  const started = Date.now();
  const progressEvery = Math.max(1, Math.ceil(rows.length / 10));

  const worker = async (): Promise<void> => {
    while (next < rows.length) {
      const i = next++;
      const row = rows[i]!;
      if (Date.now() > ctx.deadline) {
        skipped++;
        continue;
      }
      const rec = await callOne(phase, row, ctx, client, opts.afterDrift === true);
      records[i] = rec;
      done++;
      if (rec.error) {
        failures++;
        firstError ??= rec.error;
        // A gateway that answers nothing is not worth thousands of failed calls.
        if (failures >= 20 && failures === done) {
          next = rows.length;
          throw new Error(`the first ${failures} ${label} calls all failed; first error: ${firstError}`);
        }
      }
      if (done % progressEvery === 0 || done === rows.length) {
        ctx.log(`  ${label}: ${done}/${rows.length} calls, ${failures} failed, ${((Date.now() - started) / 1000).toFixed(1)} s`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(ctx.concurrency, Math.max(1, rows.length)) }, worker));
  if (skipped > 0) ctx.log(`  ${label}: ${skipped} calls skipped: the --max-seconds budget ran out`);
  return { records: records.filter((r): r is CallRecord => r !== undefined), skipped };
}

async function callOne(phase: PhaseName, row: Row, ctx: PhaseContext, client: OptimizerClient, afterDrift: boolean): Promise<CallRecord> {
  const base = ctx.models.baseline;
  const rec: CallRecord = {
    phase,
    rowId: row.id,
    step: row.step,
    served: null,
    trial: null,
    policy: null,
    score: 0,
    baselineScore: row.answers[base]!.score,
    unmatched: false,
    baseline_cost: 0,
    actual_cost: 0,
    exploration_cost: 0,
    cache_hit: false,
    replay_cost: 0,
    replay_baseline_cost: rowCost(row, base, ctx.models),
    vendor_cost: 0,
    reported: false,
    error: null,
    afterDrift,
  };
  let answer: Answered;
  try {
    answer = await complete(client, ctx.stream === true, row);
  } catch (e) {
    rec.error = isOptimizerError(e) ? `${e.status || ''} ${e.code ?? ''} ${e.message}`.trim() : String(e);
    return rec;
  }
  const { text, headers, optimizer: o } = answer;
  const named = headers.get('x-optimizer-model') || answer.model;
  rec.trial = headers.get('x-optimizer-trial') || null;
  rec.policy = headers.get('x-optimizer-policy') || null;
  const answers = ctx.vendor.answersFor(row);
  const matched = modelWithText(answers, text, named ?? undefined);
  rec.served = named ?? matched ?? null;
  rec.unmatched = matched === undefined;
  rec.score = matched !== undefined ? answers[matched]!.score : 0;
  const servedAnswer = rec.served !== null ? answers[rec.served] : undefined;
  const price = rec.served !== null ? ctx.models.models[rec.served] : undefined;
  rec.replay_cost = servedAnswer && price ? callCost(servedAnswer.usage, price) : 0;
  if (o) {
    rec.baseline_cost = o.baseline_cost;
    rec.actual_cost = o.actual_cost;
    rec.exploration_cost = o.exploration_cost;
    rec.cache_hit = o.cache_hit;
  }

  // what the call taught is learned before its outcome comes (as it is in production, where an outcome follows a run)
  await ctx.settle?.();
  const o_ = ctx.outcomes;
  if (o_.state !== 'not-built' && drawFor(ctx.seed, `outcome|${phase}|${row.id}`) < ctx.outcomeRate) {
    try {
      await client.outcomes.report({ run_id: row.id, step_id: row.step, signals: { score: rec.score } }, { signal: AbortSignal.timeout(30_000) });
      o_.state = 'ok';
      o_.sent++;
      rec.reported = true;
    } catch (e) {
      if (isOptimizerError(e) && e.status === 404 && o_.state !== 'ok') {
        if (o_.state === 'unknown') ctx.log('  note: POST /v1/outcomes answered 404 (not built yet); no outcomes will be reported');
        o_.state = 'not-built';
      } else {
        o_.errors++;
        o_.lastError = isOptimizerError(e) ? `${e.status} ${e.code ?? ''} ${e.message}` : String(e);
      }
    }
  }
  return rec;
}

interface Answered {
  text: string;
  /** The response's `model` field (a stream's from its chunks); null when absent. */
  model: string | null;
  headers: Headers;
  optimizer: OptimizedChatCompletion['optimizer'] | undefined;
}

/**
 * One completion through the typed SDK, as the row's run and step. Streamed: the
 * text is the chunks' deltas joined, the optimizer block comes from the last chunk before
 * [DONE] (the SDK's finalOptimizer), the headers from the response the stream opened with.
 */
async function complete(client: OptimizerClient, streamed: boolean, row: Row): Promise<Answered> {
  const body = { model: 'auto', messages: row.messages.map((m) => ({ ...m })), optimizer: { run: { id: row.id, seq: 0, is_start: true }, step: { id: row.step } } };
  const signal = AbortSignal.timeout(120_000);
  if (!streamed) {
    const resp = await client.chat.completions.create(body, { signal });
    return { text: resp.choices?.[0]?.message?.content ?? '', model: typeof resp.model === 'string' ? resp.model : null, headers: resp.headers, optimizer: resp.optimizer };
  }
  const stream = client.chat.completions.stream(body, { signal });
  const { headers } = await stream.response();
  let text = '';
  let model: string | null = null;
  for await (const chunk of stream) {
    if (typeof chunk.model === 'string' && chunk.model !== '') model = chunk.model;
    text += chunk.choices?.[0]?.delta?.content ?? '';
  }
  return { text, model, headers, optimizer: await stream.finalOptimizer() };
}
