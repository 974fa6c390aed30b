// Client outcomes (spec 2.4): attributed to the step's call(s) in that run, turned
// into one score — a hard failure the client observed scores 0 whatever `score`
// says; `edited` and `retried` are soft failures that cap it at a half — and recorded
// as evidence for the policy that served the call. The step is named by the client's
// `step.id`, the gateway's label for it, or the fingerprint a call's response named in its
// `x-optimizer-step` header (a step the client never named still gets its outcome).
import type { OutcomeRequest } from '@optimizer/schema';
import type { Database } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import type { Meter } from '../meter/meter.ts';
import { newId } from '../security/secrets.ts';
import type { AnswerCache } from '../cache/answer-cache.ts';
import type { Optimizer, StepKey } from './optimizer.ts';

export interface RunCall {
  callId: string;
  step: StepKey;
  policy: string;
  baseline: string;
  floor: number;
  /** The tenant's cheap judge's grade of the answer the client got: its outcome measures that judge. */
  truthGrade?: { judge: string; cheap: string; score: number | null };
}

type Signals = OutcomeRequest['signals'];

/** The most a soft failure lets a call score: an answer the human edited, or one the client had to ask again for. */
export const SOFT_FAILURE_SCORE = 0.5;

export function scoreOf(s: Signals): number {
  const hardFailure = s.schema_valid === false || s.tool_executed === false || s.run_completed === false || s.human_verdict === 'rejected';
  if (hardFailure) return 0;
  // soft failures: the answer was usable only after an edit, or the client retried the call
  const soft = s.human_verdict === 'edited' || s.retried === true;
  const base = s.score ?? 1;
  return soft ? Math.min(base, SOFT_FAILURE_SCORE) : base;
}

/** Run steps remembered for their outcome, least recently called first out. */
const MAX_RUNS = 200_000;
/**
 * Calls of one run step an outcome grades (the newest): an agent loop calls a step many
 * times, and a client that reuses a run id would otherwise grow one list forever.
 */
export const MAX_CALLS_PER_RUN_STEP = 64;

/** How many of the other replicas' flush intervals an outcome waits for its call to be written (the flush itself takes time too). */
export const PEER_FLUSH_WAITS = 3;

const CACHE_POLICY = 'cache:';
/** The policy recorded for a call a cache answered (`cache:exact`, `cache:semantic`, `cache:plan`). */
export const cachePolicy = (source: string) => `${CACHE_POLICY}${source}`;

export class Outcomes {
  readonly #runs = new Map<string, RunCall[]>();
  readonly #db: Database;
  readonly #meter: Meter;
  readonly #optimizer: Optimizer;
  readonly #cache: AnswerCache;
  readonly #peerFlushMs: number;

  /**
   * `peerFlushMs`: with replicas on a shared database (0 without), how often each writes its
   * metered calls there. An outcome can reach a replica before the one that served its call
   * has flushed that call: it looks again for up to PEER_FLUSH_WAITS of those intervals
   * before answering 404.
   */
  constructor(db: Database, meter: Meter, optimizer: Optimizer, cache: AnswerCache, peerFlushMs = 0) {
    this.#db = db;
    this.#meter = meter;
    this.#optimizer = optimizer;
    this.#cache = cache;
    this.#peerFlushMs = peerFlushMs;
  }

  /** The plan cache learns from how runs end: completed cleanly → the opening becomes a plan; a hard failure → its plan goes. */
  async #planFeedback(accountId: string, runId: string, s: Signals): Promise<void> {
    if (scoreOf(s) === 0) await this.#cache.invalidatePlanOf(accountId, runId);
    else if (s.run_completed === true) await this.#cache.promotePlan(accountId, runId, 24 * 3600_000);
  }

  /** Remembers which call served a step of a run, for the outcome that may follow. */
  remember(accountId: string, runId: string, stepId: string, call: RunCall): void {
    this.#rememberAs(`${accountId}\0${runId}\0${stepId}`, call);
    // and under the fingerprint the response named (x-optimizer-step)
    if (call.step.fingerprint !== stepId) this.#rememberAs(`${accountId}\0${runId}\0${call.step.fingerprint}`, call);
  }

  #rememberAs(key: string, call: RunCall): void {
    const list = this.#runs.get(key) ?? [];
    list.push(call);
    if (list.length > MAX_CALLS_PER_RUN_STEP) list.splice(0, list.length - MAX_CALLS_PER_RUN_STEP);
    // re-inserted, so the map's order is recency and the eviction below drops the stalest run step
    this.#runs.delete(key);
    this.#runs.set(key, list);
    if (this.#runs.size > MAX_RUNS) this.#runs.delete(this.#runs.keys().next().value!);
  }

  /**
   * The call was answered by a cache, not by the policy routing chose: its outcome says
   * nothing about that policy, so it is kept off the policy's evidence.
   */
  servedFromCache(accountId: string, runId: string, stepId: string, callId: string, source: string): void {
    for (const c of this.#runs.get(`${accountId}\0${runId}\0${stepId}`) ?? []) if (c.callId === callId) c.policy = cachePolicy(source);
  }

  async #fromDatabase(accountId: string, runId: string, stepId: string): Promise<RunCall[]> {
    await this.#meter.flush();
    const rows = (await this.#db
      .em()
      .getConnection()
      .execute(
        `select id, workflow_id, detail from call_records where account_id = ? and detail->'annotation'->'run'->>'id' = ? and detail->'optimizer' is not null
            and (detail->'optimizer'->>'step' = ? or detail->'optimizer'->>'fingerprint' = ?)
          order by created_at desc limit ${MAX_CALLS_PER_RUN_STEP}`,
        [accountId, runId, stepId, stepId],
      )) as { id: string; workflow_id: string; detail: { optimizer: { fingerprint: string; step: string; policy: string; baseline?: string; floor?: number }; annotation?: { source?: { release?: string } } } }[];
    return rows.map((r) => ({
      callId: r.id,
      step: { accountId, workflowId: r.workflow_id, fingerprint: r.detail.optimizer.fingerprint, label: r.detail.optimizer.step, release: r.detail.annotation?.source?.release ?? '' },
      policy: r.detail.optimizer.policy,
      baseline: r.detail.optimizer.baseline ?? '',
      floor: r.detail.optimizer.floor ?? 0.95,
    }));
  }

  async report(accountId: string, workflowId: string, o: OutcomeRequest): Promise<{ run_id: string; step_id: string; score: number; calls: string[] }> {
    await this.#planFeedback(accountId, o.run_id, o.signals);
    let calls = this.#runs.get(`${accountId}\0${o.run_id}\0${o.step_id}`);
    if (!calls) calls = await this.#fromDatabase(accountId, o.run_id, o.step_id);
    for (let i = 0; calls.length === 0 && i < (this.#peerFlushMs > 0 ? PEER_FLUSH_WAITS : 0); i++) {
      await new Promise((resolve) => setTimeout(resolve, this.#peerFlushMs));
      calls = await this.#fromDatabase(accountId, o.run_id, o.step_id);
    }
    if (calls.length === 0) throw new ApiError('not_found', `No call of run ${o.run_id} for step ${o.step_id}.`, { param: 'run_id' });
    const score = scoreOf(o.signals);
    const evidence = [];
    const events = [];
    for (const c of calls) {
      if (c.policy.startsWith(CACHE_POLICY)) continue; // a cached answer is no evidence for any policy
      if (c.truthGrade) evidence.push(this.#optimizer.recordTruth(c.step, c.truthGrade, score));
      const r = this.#optimizer.recordServed(c.step, { at: Date.now(), policy: c.policy, score, source: 'outcome', call: c.callId }, c.baseline, c.floor);
      evidence.push(r.row);
      events.push(...r.events.map((e) => ({ id: newId('evt'), account_id: accountId, workflow_id: c.step.workflowId, kind: e.kind, created_at: e.at.toISOString(), call_id: c.callId, payload: e.payload })));
    }
    this.#meter.recordLearning({
      activity: [],
      events,
      evidence,
      outcomes: [{ id: newId('out'), account_id: accountId, workflow_id: workflowId, run_id: o.run_id, step_id: o.step_id, created_at: new Date().toISOString(), signals: o.signals, score, call_ids: calls.map((c) => c.callId) }],
    });
    return { run_id: o.run_id, step_id: o.step_id, score, calls: calls.map((c) => c.callId) };
  }
}
