// Discovery mode (spec 3, 4.6; design §6): per workflow (= proxy agent), a flag and a
// USD credit that exploration spend draws down while the flag is on. An agent
// discovers only when the flag is on, the request asks (model `discover`, step.mode
// `discover`, or model `auto` while the flag is on) and credit remains. Its state,
// `discovering` until every seen step has settled and then `optimized`, is derived at
// read time, never stored. The report gives each step's settled answer, its priced
// delta against the baseline, and whether the tenant's current keys reach it.
//
// The hot path (isDiscovering, charge) reads and writes memory only. Charges reach
// the database in one batched update about every second; each replica reloads the
// enabled flags and credit every two seconds. So a crash forgets at most a second of
// charges, and replicas together may overdraw the credit by what they spend between
// two reloads: a soft limit, as a credit for exploration can afford to be.
import type { ModelProfile, OptimizerAnnotation } from '@optimizer/schema';
import type { Catalog } from '../catalog/catalog.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import type { Meter } from '../meter/meter.ts';
import { costMicros, type Usage } from '../wire/usage.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import type { ProviderKeys } from '../tenancy/provider-keys.ts';
import { describePolicy, parsePolicy, policyModels } from './policies.ts';
import type { StepRegistry, StepView } from './registry.ts';

/** Credit a workflow starts with: 5 USD of exploration. */
export const DEFAULT_CREDIT_MICROS = 5_000_000;
const RELOAD_MS = 2_000;
const FLUSH_MS = 1_000;
const MONTH_MS = 30 * 24 * 3600_000;
/** Volume is extrapolated from at least this long a window, so a step seen seconds ago is not priced at a burst rate. */
const MIN_WINDOW_MS = 60_000;

interface Held {
  accountId: string;
  enabled: boolean;
  creditMicros: number;
  /** Used as the database last told us (or as our own flush returned). */
  usedMicros: number;
  /** Charged here and not yet written. */
  pendingMicros: number;
  /** The local write that last set this entry, so a reload begun before it does not undo it. */
  epoch: number;
}

interface DiscoveryRow {
  workflow_id: string;
  account_id: string;
  enabled: boolean;
  credit_micros: string | number;
  used_micros: string | number;
}

export interface DiscoveryDeps {
  db: Database;
  meter: Meter;
  steps: StepRegistry;
  catalog: Catalog;
  providers: ProviderRegistry;
  providerKeys: ProviderKeys;
  logger: Logger;
}

const usd = (m: number) => Math.round(m) / 1e6;
/** A candidate may be a model at a lower reasoning effort, named `model@effort`: the catalog knows the model. */
const catalogName = (m: string) => (m.includes('@') ? m.slice(0, m.lastIndexOf('@')) : m);

/** `discovering` until every step seen has settled (and at least one has been seen). */
export function discoveryState(steps: Pick<StepView, 'settled'>[]): 'discovering' | 'optimized' {
  return steps.length > 0 && steps.every((s) => s.settled) ? 'optimized' : 'discovering';
}

export class Discovery {
  readonly #d: DiscoveryDeps;
  readonly #held = new Map<string, Held>();
  #epoch = 0;
  #timers: NodeJS.Timeout[] = [];
  #flushing: Promise<void> | null = null;

  constructor(deps: DiscoveryDeps) {
    this.#d = deps;
  }

  async start(): Promise<void> {
    await this.#reload();
    const reload = setInterval(() => void this.#reload().catch((err: unknown) => this.#d.logger.warn({ err }, 'discovery reload failed')), RELOAD_MS);
    const flush = setInterval(() => {
      if (!this.#flushing) void this.flush();
    }, FLUSH_MS);
    reload.unref();
    flush.unref();
    this.#timers = [reload, flush];
  }

  /** The enabled flags and credit of every workflow in discovery, as the database holds them now. */
  async #reload(): Promise<void> {
    const since = this.#epoch;
    const rows = (await this.#d.db
      .em()
      .getConnection()
      .execute('select workflow_id, account_id, enabled, credit_micros, used_micros from discovery where enabled')) as DiscoveryRow[];
    const on = new Set<string>();
    for (const r of rows) {
      on.add(r.workflow_id);
      const h = this.#held.get(r.workflow_id);
      if (h && h.epoch > since) continue; // written here while the query ran: ours is newer
      this.#held.set(r.workflow_id, {
        accountId: r.account_id,
        enabled: true,
        creditMicros: Number(r.credit_micros),
        usedMicros: Math.max(h?.usedMicros ?? 0, Number(r.used_micros)),
        pendingMicros: h?.pendingMicros ?? 0,
        epoch: h?.epoch ?? 0,
      });
    }
    for (const [wf, h] of this.#held) if (!on.has(wf) && h.epoch <= since) h.enabled = false;
  }

  #remaining(h: Held): number {
    return h.creditMicros - h.usedMicros - h.pendingMicros;
  }

  /**
   * Hook for the pipeline: whether this call is a discovery call. True only when the
   * workflow's flag is on, the request asks (model `discover`, `optimizer.step.mode`
   * `discover`, or model `auto` while the flag is on) and credit remains. Memory only.
   */
  isDiscovering(workflowId: string, requestedModel: string, annotation: OptimizerAnnotation | undefined): boolean {
    const h = this.#held.get(workflowId);
    if (!h?.enabled) return false;
    const asks = requestedModel === 'discover' || annotation?.step?.mode === 'discover' || requestedModel === 'auto';
    return asks && this.#remaining(h) > 0;
  }

  /** Discovery is on for this workflow but its credit is spent: exploration stops. */
  creditSpent(workflowId: string): boolean {
    const h = this.#held.get(workflowId);
    return h?.enabled === true && this.#remaining(h) <= 0;
  }

  /**
   * Hook for the pipeline: draws a call's exploration spend (micro-dollars: probes and
   * judge calls) from the workflow's discovery credit. A no-op while the flag is off.
   * Memory only; written in the next batch.
   */
  charge(workflowId: string, micros: number): void {
    if (!(micros > 0)) return;
    const h = this.#held.get(workflowId);
    if (!h?.enabled) return;
    h.pendingMicros += Math.round(micros);
  }

  /** Writes every charge made before this call (waiting out a write already under way). */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    const batch = [...this.#held].filter(([, h]) => h.pendingMicros > 0).map(([wf, h]) => ({ workflow_id: wf, micros: h.pendingMicros }));
    if (batch.length === 0) return;
    this.#flushing = this.#write(batch).finally(() => (this.#flushing = null));
    return this.#flushing;
  }

  async #write(batch: { workflow_id: string; micros: number }[]): Promise<void> {
    try {
      const rows = (await this.#d.db.em().getConnection().execute(
        `update discovery d set used_micros = d.used_micros + x.micros, updated_at = now()
           from jsonb_to_recordset(?::jsonb) as x(workflow_id text, micros bigint)
          where d.workflow_id = x.workflow_id returning d.workflow_id, d.used_micros`,
        [JSON.stringify(batch)],
      )) as { workflow_id: string; used_micros: string | number }[];
      const used = new Map(rows.map((r) => [r.workflow_id, Number(r.used_micros)]));
      for (const b of batch) {
        const h = this.#held.get(b.workflow_id);
        if (!h) continue;
        h.pendingMicros -= b.micros;
        h.usedMicros = Math.max(h.usedMicros + b.micros, used.get(b.workflow_id) ?? 0);
      }
    } catch (err) {
      this.#d.logger.warn({ err, workflows: batch.length }, 'discovery credit write failed; kept in memory and retried');
    }
  }

  async #row(accountId: string, workflowId: string): Promise<DiscoveryRow | undefined> {
    const [row] = (await this.#d.db
      .em()
      .getConnection()
      .execute('select workflow_id, account_id, enabled, credit_micros, used_micros from discovery where workflow_id = ? and account_id = ?', [workflowId, accountId])) as DiscoveryRow[];
    return row;
  }

  /** Turns discovery on or off and returns the state read back. The caller checks the tenant owns the workflow. */
  async setEnabled(accountId: string, workflowId: string, enabled: boolean) {
    await this.#d.db.em().transactional(async (em) => {
      const conn = em.getConnection();
      const trx = em.getTransactionContext();
      await conn.execute(
        `insert into discovery (workflow_id, account_id, enabled, credit_micros) values (?, ?, ?, ?)
         on conflict (workflow_id) do update set enabled = excluded.enabled, updated_at = now()`,
        [workflowId, accountId, enabled, DEFAULT_CREDIT_MICROS],
        'run',
        trx,
      );
      // the agent list shows the flag too
      await conn.execute('update workflows set discovery_enabled = ? where id = ? and account_id = ?', [enabled, workflowId, accountId], 'run', trx);
    });
    const row = (await this.#row(accountId, workflowId))!;
    const h = this.#held.get(workflowId);
    this.#held.set(workflowId, {
      accountId,
      enabled: row.enabled,
      creditMicros: Number(row.credit_micros),
      usedMicros: Math.max(h?.usedMicros ?? 0, Number(row.used_micros)),
      pendingMicros: h?.pendingMicros ?? 0,
      epoch: ++this.#epoch,
    });
    return this.view(accountId, workflowId);
  }

  /** Live progress: the flag, the derived state, the credit and every step seen. */
  async view(accountId: string, workflowId: string) {
    await this.flush(); // read your own charges
    const row = await this.#row(accountId, workflowId);
    const steps = await this.#d.steps.list(accountId, workflowId);
    const granted = row ? Number(row.credit_micros) : DEFAULT_CREDIT_MICROS;
    const used = row ? Number(row.used_micros) : 0;
    return {
      agent: workflowId,
      enabled: row?.enabled ?? false,
      state: discoveryState(steps),
      credit: { granted_usd: usd(granted), used_usd: usd(used), remaining_usd: usd(Math.max(0, granted - used)) },
      steps: steps.map((s) => ({
        fingerprint: s.fingerprint,
        label: s.label,
        calls: s.calls,
        first_seen: s.first_seen,
        last_seen: s.last_seen,
        excluded: s.excluded,
        settled: s.settled,
        chosen: s.chosen,
      })),
    };
  }

  /** Whether the tenant's current keys reach a provider: a stored key of theirs, or the platform's. */
  reach(accountId: string, provider: string | null): { provider: string | null; reachable: boolean; via: 'stored_key' | 'platform_key' | null } {
    const info = provider ? this.#d.providers.get(provider) : undefined;
    if (!provider || !info) return { provider, reachable: false, via: null };
    if (this.#d.providerKeys.has(accountId, provider)) return { provider, reachable: true, via: 'stored_key' };
    if (info.platformKey !== undefined) return { provider, reachable: true, via: 'platform_key' };
    return { provider, reachable: false, via: null };
  }

  /** Per step: the settled answer, its priced delta against the baseline, and reachability. */
  async report(accountId: string, workflowId: string) {
    const steps = await this.#d.steps.list(accountId, workflowId); // flushes the registry
    const observed = await this.#observed(accountId, workflowId);
    const now = Date.now();
    const out = steps.map((s) => {
      const o = observed.get(s.fingerprint);
      const baselineModel = o?.baseline ?? null;
      const policy = s.chosen ?? (baselineModel ? `model:${baselineModel}` : null);
      const models = policy ? policyModels(parsePolicy(policy)) : [];
      const usage: Usage = { promptTokens: o?.prompt ?? 0, completionTokens: o?.completion ?? 0, cachedTokens: o?.cached ?? 0, cacheWriteTokens: 0, reasoningTokens: 0, estimated: false };
      const baseProfile = baselineModel ? this.#d.catalog.get(baselineModel) : undefined;
      const baseline = baseProfile ? costMicros(baseProfile, usage) : (o?.baselineMicros ?? 0);
      const chosen = this.#chosenCost(policy, s, usage, baseline);
      const windowMs = Math.max(MIN_WINDOW_MS, now - new Date(s.first_seen).getTime());
      const perMonth = (s.calls / windowMs) * MONTH_MS;
      const providers = [...new Set(models.map((m) => this.#d.catalog.get(catalogName(m))?.provider ?? null))].map((p) => this.reach(accountId, p));
      return {
        fingerprint: s.fingerprint,
        label: s.label,
        settled: s.settled,
        excluded: s.excluded,
        chosen: policy ? { policy, models, description: describePolicy(parsePolicy(policy)) } : null,
        baseline: { model: baselineModel },
        observed: { calls: s.calls, first_seen: s.first_seen, last_seen: s.last_seen, calls_per_month: Math.round(perMonth) },
        cost: {
          priced_from: chosen.from,
          per_call: { prompt_tokens: round(usage.promptTokens), completion_tokens: round(usage.completionTokens), cached_tokens: round(usage.cachedTokens) },
          per_1k_calls: deltas(baseline * 1000, chosen.micros * 1000),
          per_month: deltas(baseline * perMonth, chosen.micros * perMonth),
        },
        reachable: providers.length > 0 && providers.every((p) => p.reachable),
        providers,
      };
    });
    const sum = (k: 'baseline_usd' | 'chosen_usd' | 'saving_usd') => usd(out.reduce((a, s) => a + s.cost.per_month[k] * 1e6, 0));
    return {
      agent: workflowId,
      state: discoveryState(steps),
      generated_at: new Date(now).toISOString(),
      steps: out,
      totals: { per_month: { baseline_usd: sum('baseline_usd'), chosen_usd: sum('chosen_usd'), saving_usd: sum('saving_usd') } },
    };
  }

  /**
   * A single model is priced from the catalog in force now on the step's average call;
   * a gate, a verify (several calls, escalations) or a lower reasoning effort (fewer
   * output tokens than the average call had) from its evidence: its measured cost share
   * of the baseline. Without evidence on this replica, the catalog prices its models.
   */
  #chosenCost(policy: string | null, s: StepView, usage: Usage, baseline: number): { micros: number; from: 'catalog' | 'evidence' | null } {
    if (!policy) return { micros: baseline, from: null };
    const p = parsePolicy(policy);
    if (p.kind === 'model' && !p.model.includes('@')) {
      const profile: ModelProfile | undefined = this.#d.catalog.get(p.model);
      if (profile) return { micros: costMicros(profile, usage), from: 'catalog' };
    }
    const seen = s.candidates.find((c) => c.policy === policy);
    if (seen) return { micros: baseline * seen.cost_share, from: 'evidence' };
    return { micros: policyModels(p).reduce((a, m) => a + costMicros(this.#d.catalog.get(catalogName(m)), usage), 0), from: 'catalog' };
  }

  /** Per step of a workflow: average usage and baseline cost of its answered calls, and the baseline last used. */
  async #observed(accountId: string, workflowId: string) {
    await this.#d.meter.flush(); // read your own writes on this replica
    const rows = (await this.#d.db.em().getConnection().execute(
      `select detail->'optimizer'->>'fingerprint' as fingerprint,
              avg(prompt_tokens)::float8 as prompt, avg(completion_tokens)::float8 as completion,
              avg(cached_tokens)::float8 as cached, avg(baseline_micros)::float8 as baseline_micros,
              (array_agg(detail->'optimizer'->>'baseline' order by created_at desc))[1] as baseline
         from call_records
        where account_id = ? and workflow_id = ? and status = 200 and detail->'optimizer'->>'fingerprint' is not null
        group by 1`,
      [accountId, workflowId],
    )) as { fingerprint: string; prompt: number; completion: number; cached: number; baseline_micros: number; baseline: string | null }[];
    return new Map(rows.map((r) => [r.fingerprint, { prompt: Number(r.prompt), completion: Number(r.completion), cached: Number(r.cached), baselineMicros: Number(r.baseline_micros), baseline: r.baseline }]));
  }

  async close(): Promise<void> {
    for (const t of this.#timers) clearInterval(t);
    await this.flush();
  }
}

const round = (x: number) => Math.round(x * 10) / 10;

function deltas(baselineMicros: number, chosenMicros: number) {
  return { baseline_usd: usd(baselineMicros), chosen_usd: usd(chosenMicros), saving_usd: usd(baselineMicros - chosenMicros) };
}
