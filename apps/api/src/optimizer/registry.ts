// The step registry (spec 2.7, design §6): every step the pipeline sees, when each
// phase first and last saw it, how often, and whether it is expected (seen and not
// excluded). A sighting is a map update on the hot path; the counts reach the
// `steps` table in one batched upsert about every second, so a crash loses at most
// that second of counts (the steps themselves reappear with their next call).
// Reads flush first and then read the table, so every replica's sightings count.
import type { Database } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { Optimizer, StepKey } from './optimizer.ts';
import type { StepCheck as SemanticStepCheck } from '../cache/semantic-cache.ts';
import type { VerificationStats } from '../cache/semantic-cache/verification.ts';

/** Which part of a workflow's life saw the step (design §9); only tuning is served today. */
export type Phase = 'tuning' | 'discovery' | 'production';

interface Pending {
  accountId: string;
  workflowId: string;
  fingerprint: string;
  label: string;
  release: string;
  phase: Phase;
  first: Date;
  last: Date;
  calls: number;
}

interface StepRow {
  workflow_id: string;
  fingerprint: string;
  account_id: string;
  label: string;
  /** A timestamp as the driver returns it (a Date, or text on a raw query). */
  first_seen: Date | string;
  last_seen: Date | string;
  calls: number;
  excluded: boolean;
  last_seen_phase: string | null;
  phases: Record<string, { first_seen: string; last_seen: string; calls: number }>;
  release: string;
}

type OptimizerStep = ReturnType<Optimizer['stepStates']>[number];

export interface StepView {
  fingerprint: string;
  label: string;
  first_seen: string;
  last_seen: string;
  last_seen_phase: string | null;
  phases: StepRow['phases'];
  calls: number;
  excluded: boolean;
  expected: boolean;
  settled: boolean;
  /** The policy serving the step now (`model:…`, `gate:…+…`, `verify:…`); null before any decision on this replica. */
  chosen: string | null;
  probes: number;
  served: number;
  /** How often the judge disagrees with itself on this step (0 until measured). */
  judge_error: number;
  /** Pruning's evidence on this step: pruned requests compared with the same requests as sent. */
  pruning: { n: number; retention: number; lcb: number };
  /**
   * The step's exploration as an investment (this replica's view): its routed calls and their
   * baseline cost, what exploring has cost and as a share of that, the best candidate's payback
   * at the last decision and the share of calls probed at it.
   */
  exploration: OptimizerStep['exploration'];
  /**
   * The judge's checks of this step's semantic-cache hits, whether the step lost semantic
   * caching, and (with an error bound) its verified record: bound, learned threshold, observed error.
   */
  semantic_cache: SemanticStepCheck & { verification?: VerificationStats | null };
  candidates: OptimizerStep['candidates'];
  /** Learning by serving: the step's quality-risk budget, the share its trials use, the trials by policy. */
  learning: OptimizerStep['learning'];
}

export interface WorkflowSummary {
  steps_seen: number;
  steps_expected: number;
  steps_settled: number;
}

/**
 * The optimizer keeps one state per (step, release); the registry's row names the
 * release it saw last, and that one is the step's current state. Without a release
 * on the optimizer's view, the newest state (last inserted) stands.
 */
function currentStates(optimizer: Optimizer, workflowId: string, releaseOf: (fingerprint: string) => string | undefined): Map<string, OptimizerStep> {
  const out = new Map<string, OptimizerStep>();
  for (const st of optimizer.stepStates(workflowId)) {
    const release = (st as { release?: string }).release;
    const wanted = releaseOf(st.fingerprint);
    if (release !== undefined && wanted !== undefined && release !== wanted) continue;
    out.set(st.fingerprint, st);
  }
  return out;
}

const iso = (t: Date | string) => new Date(t).toISOString();

const UPSERT = `
insert into steps (workflow_id, fingerprint, account_id, label, first_seen, last_seen, calls, excluded, last_seen_phase, phases, release)
select x.workflow_id, x.fingerprint, x.account_id, x.label, x.first_seen, x.last_seen, x.calls, false, x.phase,
       jsonb_build_object(x.phase, jsonb_build_object('first_seen', x.first_seen, 'last_seen', x.last_seen, 'calls', x.calls)), x.release
  from jsonb_to_recordset(?::jsonb) as x(workflow_id text, fingerprint text, account_id text, label text,
       first_seen timestamptz, last_seen timestamptz, calls integer, phase text, release text)
on conflict (workflow_id, fingerprint) do update set
  label = case when excluded.label <> '' then excluded.label else steps.label end,
  first_seen = least(steps.first_seen, excluded.first_seen),
  last_seen = greatest(steps.last_seen, excluded.last_seen),
  calls = steps.calls + excluded.calls,
  last_seen_phase = case when excluded.last_seen >= steps.last_seen then excluded.last_seen_phase else steps.last_seen_phase end,
  release = case when excluded.last_seen >= steps.last_seen then excluded.release else steps.release end,
  phases = steps.phases || jsonb_build_object(excluded.last_seen_phase, jsonb_build_object(
    'first_seen', least((steps.phases->excluded.last_seen_phase->>'first_seen')::timestamptz, excluded.first_seen),
    'last_seen', greatest((steps.phases->excluded.last_seen_phase->>'last_seen')::timestamptz, excluded.last_seen),
    'calls', coalesce((steps.phases->excluded.last_seen_phase->>'calls')::integer, 0) + excluded.calls))`;

export class StepRegistry {
  readonly #db: Database;
  readonly #optimizer: Optimizer;
  readonly #semantic: (accountId: string, fingerprint: string) => SemanticStepCheck & { verification?: VerificationStats | null };
  readonly #logger: Logger;
  readonly #flushMs: number;
  /** Sightings not yet written, by workflow, fingerprint and phase. */
  #pending = new Map<string, Pending>();
  #flushing: Promise<void> | null = null;
  #timer: NodeJS.Timeout | null = null;

  constructor(opts: { db: Database; optimizer: Optimizer; logger: Logger; flushMs?: number; semantic?: (accountId: string, fingerprint: string) => SemanticStepCheck & { verification?: VerificationStats | null } }) {
    this.#semantic = opts.semantic ?? (() => ({ checked: 0, failed: 0, disabled: false, reason: null }));
    this.#db = opts.db;
    this.#optimizer = opts.optimizer;
    this.#logger = opts.logger;
    this.#flushMs = opts.flushMs ?? 1_000;
  }

  start(): void {
    this.#timer = setInterval(() => {
      if (!this.#flushing) void this.flush();
    }, this.#flushMs);
    this.#timer.unref();
  }

  /** One call seen on a step (the hot path: a map update, no I/O). */
  seen(step: StepKey, phase: Phase): void {
    const id = `${step.workflowId}\0${step.fingerprint}\0${phase}`;
    const now = new Date();
    const p = this.#pending.get(id);
    if (p) {
      p.last = now;
      p.calls += 1;
      if (step.label) p.label = step.label;
      p.release = step.release;
      return;
    }
    this.#pending.set(id, { accountId: step.accountId, workflowId: step.workflowId, fingerprint: step.fingerprint, label: step.label, release: step.release, phase, first: now, last: now, calls: 1 });
  }

  /** Writes every sighting recorded before this call (waiting out a write already under way). */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    if (this.#pending.size === 0) return;
    this.#flushing = this.#flushOnce().finally(() => (this.#flushing = null));
    return this.#flushing;
  }

  async #flushOnce(): Promise<void> {
    const batch = this.#pending;
    this.#pending = new Map();
    // one statement per phase: a statement may touch each (workflow, fingerprint) row once
    const byPhase = Map.groupBy(batch.values(), (p) => p.phase);
    try {
      await this.#db.em().transactional(async (em) => {
        for (const rows of byPhase.values()) {
          const json = rows.map((p) => ({
            workflow_id: p.workflowId,
            fingerprint: p.fingerprint,
            account_id: p.accountId,
            label: p.label,
            first_seen: p.first.toISOString(),
            last_seen: p.last.toISOString(),
            calls: p.calls,
            phase: p.phase,
            release: p.release,
          }));
          await em.getConnection().execute(UPSERT, [JSON.stringify(json)], 'run', em.getTransactionContext());
        }
      });
    } catch (err) {
      // keep the counts for the next attempt, merged with what arrived meanwhile
      for (const [id, p] of batch) {
        const later = this.#pending.get(id);
        if (later) {
          later.first = p.first;
          later.calls += p.calls;
        } else this.#pending.set(id, p);
      }
      this.#logger.warn({ err, steps: batch.size }, 'step registry write failed; kept in memory and retried');
    }
  }

  async #rows(accountId: string, workflowId?: string, fingerprint?: string): Promise<StepRow[]> {
    await this.flush();
    const where = ['account_id = ?'];
    const params: string[] = [accountId];
    if (workflowId !== undefined) {
      where.push('workflow_id = ?');
      params.push(workflowId);
    }
    if (fingerprint !== undefined) {
      where.push('fingerprint = ?');
      params.push(fingerprint);
    }
    return (await this.#db
      .em()
      .getConnection()
      .execute(`select * from steps where ${where.join(' and ')} order by first_seen asc, fingerprint asc`, params)) as StepRow[];
  }

  #view(rows: StepRow[], accountId: string, workflowId: string): StepView[] {
    const release = new Map(rows.map((r) => [r.fingerprint, r.release]));
    const states = currentStates(this.#optimizer, workflowId, (f) => release.get(f));
    return rows.map((r) => {
      const st = states.get(r.fingerprint);
      return {
        fingerprint: r.fingerprint,
        label: r.label || st?.label || '',
        first_seen: iso(r.first_seen),
        last_seen: iso(r.last_seen),
        last_seen_phase: r.last_seen_phase,
        phases: Object.fromEntries(Object.entries(r.phases).map(([k, v]) => [k, { first_seen: iso(v.first_seen), last_seen: iso(v.last_seen), calls: v.calls }])),
        calls: r.calls,
        excluded: r.excluded,
        expected: !r.excluded,
        settled: st?.settled ?? false,
        chosen: st?.chosen || null,
        probes: st?.probes ?? 0,
        served: st?.served ?? 0,
        judge_error: st?.judge_error ?? 0,
        pruning: st?.pruning ?? { n: 0, retention: 1, lcb: 0 },
        exploration: st?.exploration ?? { calls: 0, baseline_usd: 0, spent_usd: 0, share_of_baseline: 0, payback: 0, rate: 0 },
        semantic_cache: this.#semantic(accountId, r.fingerprint),
        candidates: st?.candidates ?? [],
        learning: st?.learning ?? { risk_budget: 0, risk_used: 0, trials: {}, kind: null, kind_declared: false },
      };
    });
  }

  /** Every step seen on a workflow, with the optimizer's state for it. The caller checks the tenant owns it. */
  async list(accountId: string, workflowId: string): Promise<StepView[]> {
    return this.#view(await this.#rows(accountId, workflowId), accountId, workflowId);
  }

  async get(accountId: string, workflowId: string, fingerprint: string): Promise<StepView | undefined> {
    return this.#view(await this.#rows(accountId, workflowId, fingerprint), accountId, workflowId)[0];
  }

  /** Takes a step out of the Expected Steps (or back in); 404 for a step this workflow has not seen. */
  async setExcluded(accountId: string, workflowId: string, fingerprint: string, excluded: boolean): Promise<StepView> {
    await this.flush(); // a step seen on this replica moments ago has its row
    const updated = (await this.#db
      .em()
      .getConnection()
      .execute('update steps set excluded = ? where account_id = ? and workflow_id = ? and fingerprint = ? returning fingerprint', [excluded, accountId, workflowId, fingerprint])) as unknown[];
    if (updated.length === 0) throw new ApiError('not_found', `No step ${fingerprint} on agent ${workflowId}.`, { param: 'fingerprint' });
    return (await this.get(accountId, workflowId, fingerprint))!;
  }

  /** Per workflow of a tenant: steps seen, expected (seen and not excluded) and of those settled. */
  async summary(accountId: string): Promise<Map<string, WorkflowSummary>> {
    const byWf = Map.groupBy(await this.#rows(accountId), (r) => r.workflow_id);
    const out = new Map<string, WorkflowSummary>();
    for (const [wf, rows] of byWf) {
      const steps = this.#view(rows, accountId, wf);
      const expected = steps.filter((s) => s.expected);
      out.set(wf, { steps_seen: steps.length, steps_expected: expected.length, steps_settled: expected.filter((s) => s.settled).length });
    }
    return out;
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    await this.flush();
  }
}
