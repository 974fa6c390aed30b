// Managed agents (spec 4.5): workflows the platform runs for a tenant. Agents are stored
// with a job config checked on the server; a run is counted against the month's run cap
// in the same transaction that creates it (402 run_cap_reached with cap and used when
// spent); a playground config is checked before anything is counted. A proposed action
// runs against its connection exactly once: one conditional update moves it from
// proposed to executing, and a repeat answers what the first execution got.
import { managedAgentConfig, type ManagedAgentConfig } from '@optimizer/schema';
import type { Connections } from '../connections/connections.ts';
import { periodOf } from '../billing/month.ts';
import { ApiError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { newId } from '../security/secrets.ts';
import type { Principal } from '../tenancy/key-cache.ts';
import { Runner } from './runner.ts';
import { Schedules } from './schedules.ts';
import { RunStore, type ActionRow, type EventRow, type RunRow } from './run-store.ts';

interface AgentRow {
  id: string;
  account_id: string;
  workflow_id: string;
  key_id: string;
  name: string;
  kind: 'chain' | 'action';
  config: ManagedAgentConfig;
  created_at: Date | string;
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/** A stored config as it is read: defaults filled in (an action agent stored before the step cap had one shows it). */
const readConfig = (c: unknown) => {
  const parsed = managedAgentConfig.safeParse(c);
  return parsed.success ? parsed.data : (c as ManagedAgentConfig);
};

const agentView = (a: AgentRow) => ({ id: a.id, name: a.name, kind: a.kind, config: readConfig(a.config), created_at: iso(a.created_at) });

const actionView = (a: ActionRow) => ({
  id: a.id,
  connection: a.connection,
  method: a.method,
  path: a.path,
  body: a.body === null ? null : (JSON.parse(a.body) as unknown),
  status: a.status,
  response: a.response_status === null ? null : { status: a.response_status, body: a.response_body },
  error: a.error,
  executed_at: iso(a.executed_at),
});

const stepNames = (run: RunRow): string[] => (run.kind === 'chain' ? (run.config.steps as { name: string }[]).map((s) => s.name) : Object.keys(run.state.outputs));

const runSummary = (r: RunRow) => ({ id: r.id, agent: r.agent_id, kind: r.kind, status: r.status, input: r.input, error: r.error, created_at: iso(r.created_at)!, updated_at: iso(r.updated_at)! });

export const eventView = (e: EventRow) => ({ seq: e.seq, type: e.type, data: e.data, created_at: iso(e.created_at) });

export interface ManagedAgentsOptions {
  store: RunStore;
  connections: Connections;
  logger: Logger;
  /** Runs a tenant may start in a month: a number, or billing's answer for the tenant (its plan). */
  runCap: number | ((accountId: string) => Promise<number>);
}

export class ManagedAgents {
  readonly #o: ManagedAgentsOptions;
  readonly runner: Runner;
  readonly schedules: Schedules;

  constructor(o: ManagedAgentsOptions) {
    this.#o = o;
    this.runner = new Runner(o.store, o.logger, {
      tools: async (accountId) => (await o.connections.list(accountId)).map((c) => c.name),
      execute: (accountId, runId, actionId) => this.#executeOnce(accountId, runId, actionId),
    });
    this.schedules = new Schedules(o.store, o.logger, (p, agentId, input) => this.start(p, agentId, input));
  }

  get store(): RunStore {
    return this.#o.store;
  }

  async list(accountId: string) {
    const rows = await this.#o.store.sql<AgentRow>('select * from managed_agents where account_id = ? order by created_at, id', [accountId]);
    return rows.map(agentView);
  }

  async create(p: Principal, name: string, config: ManagedAgentConfig) {
    const id = newId('magt');
    const [row] = await this.#o.store.sql<AgentRow>(
      'insert into managed_agents (id, account_id, workflow_id, key_id, name, kind, config) values (?, ?, ?, ?, ?, ?, ?) returning *',
      [id, p.accountId, p.workflowId, p.keyId, name, config.kind, JSON.stringify(config)],
    );
    return agentView(row!);
  }

  async #agent(accountId: string, id: string): Promise<AgentRow> {
    const [row] = await this.#o.store.sql<AgentRow>('select * from managed_agents where id = ? and account_id = ?', [id, accountId]);
    if (!row) throw new ApiError('not_found', `No managed agent ${id}.`);
    return row;
  }

  /**
   * Starts a run of a stored agent: under the tenant and the agent's workflow, recording the
   * key (or session's key) that started it. The key that created the agent plays no part, so
   * revoking it stops no run (docs/decisions.md).
   */
  async start(p: Principal, agentId: string, input: string) {
    const agent = await this.#agent(p.accountId, agentId);
    return this.#start({ accountId: p.accountId, workflowId: agent.workflow_id, keyId: p.keyId }, agent.id, managedAgentConfig.parse(agent.config), input);
  }

  /** Sets (or replaces) the agent's schedule: each tick starts a run under the key that set it. */
  async schedule(p: Principal, agentId: string, cron: string, input: string, catchUpS: number) {
    const agent = await this.#agent(p.accountId, agentId);
    return this.schedules.put(p, agent.id, cron, input, catchUpS);
  }

  /** The agent's schedule, or null (404 for another tenant's agent). */
  async scheduleOf(accountId: string, agentId: string) {
    const agent = await this.#agent(accountId, agentId);
    return this.schedules.get(accountId, agent.id);
  }

  /** A stored agent's latest runs, newest first (404 for another tenant's agent). */
  async runs(accountId: string, agentId: string) {
    await this.#agent(accountId, agentId);
    const rows = await this.#o.store.sql<RunRow>('select * from managed_runs where account_id = ? and agent_id = ? order by created_at desc, id desc limit 50', [accountId, agentId]);
    return rows.map(runSummary);
  }

  /** Starts a run of a custom config (already validated by the caller: a config that fails never reaches here, so it spends nothing). */
  playground(p: Principal, config: ManagedAgentConfig, input: string) {
    return this.#start(p, null, config, input);
  }

  async #start(p: Principal, agentId: string | null, config: ManagedAgentConfig, input: string) {
    if (config.kind === 'action') await this.#o.connections.get(p.accountId, config.connection); // 404 before a run is spent
    const id = newId('mrun');
    const month = periodOf(new Date());
    const cap = typeof this.#o.runCap === 'number' ? this.#o.runCap : await this.#o.runCap(p.accountId);
    const run = await this.#o.store.tx(async (em) => {
      const used = await this.#o.store.countRun(p.accountId, month, cap, em);
      if (used === null) return null;
      const [row] = await this.#o.store.sql<RunRow>(
        `insert into managed_runs (id, account_id, agent_id, workflow_id, key_id, kind, config, input, status, state, lease_until)
          values (?, ?, ?, ?, ?, ?, ?, ?, 'running', ?, now() + interval '${this.#o.store.leaseSeconds} seconds') returning *`,
        [id, p.accountId, agentId, p.workflowId, p.keyId, config.kind, JSON.stringify(config), input, JSON.stringify({ next: 0, outputs: {}, attempts: 0 })],
        em,
      );
      await this.#o.store.append(id, 'run.started', { agent: agentId, kind: config.kind, month, used }, em);
      return row!;
    });
    if (run === null) {
      const used = await this.#o.store.used(p.accountId, month);
      throw new ApiError('run_cap_reached', `This month's managed-run cap of ${cap} runs is spent (${used} used); runs start again on the 1st (UTC).`, { extra: { cap, used } });
    }
    this.runner.drive(run);
    return this.view(p.accountId, run.id);
  }

  async view(accountId: string, runId: string) {
    const run = await this.#o.store.run(runId, accountId);
    if (!run) throw new ApiError('not_found', `No managed run ${runId}.`);
    return {
      id: run.id,
      agent: run.agent_id,
      kind: run.kind,
      status: run.status,
      input: run.input,
      output: run.state.output ?? null,
      // in the config's order (a jsonb object keeps its own)
      steps: stepNames(run).filter((n) => n in run.state.outputs).map((name) => ({ name, output: run.state.outputs[name]! })),
      error: run.error,
      actions: (await this.#o.store.actions(run.id)).map(actionView),
      events_url: `/v1/managed-runs/${run.id}/events`,
      created_at: iso(run.created_at),
      updated_at: iso(run.updated_at),
    };
  }

  /** Checks the run is the tenant's (404 otherwise). */
  async own(accountId: string, runId: string): Promise<RunRow> {
    const run = await this.#o.store.run(runId, accountId);
    if (!run) throw new ApiError('not_found', `No managed run ${runId}.`);
    return run;
  }

  /** Executes one proposed action against its connection, once; a repeat answers the first result. */
  async execute(accountId: string, runId: string, actionId: string) {
    await this.own(accountId, runId);
    try {
      return await this.#executeOnce(accountId, runId, actionId);
    } finally {
      await this.runner.settleActions(runId);
    }
  }

  /** The execution itself (the run's owner checked by the caller), without settling the run. */
  async #executeOnce(accountId: string, runId: string, actionId: string) {
    const store = this.#o.store;
    const [claimed] = await store.sql<ActionRow>(`update managed_actions set status = 'executing' where id = ? and run_id = ? and status = 'proposed' returning *`, [actionId, runId]);
    if (!claimed) {
      const [a] = await store.sql<ActionRow>('select * from managed_actions where id = ? and run_id = ?', [actionId, runId]);
      if (!a) throw new ApiError('not_found', `No action ${actionId} in run ${runId}.`);
      if (a.status === 'executing') throw new ApiError('conflict', `Action ${actionId} is being executed now; read the run for its result.`);
      return { ...actionView(a), replayed: true };
    }
    await store.append(runId, 'action.executing', { action: actionId });
    let done: ActionRow;
    try {
      const res = await this.#o.connections.call(accountId, claimed.connection, { method: claimed.method, path: claimed.path, ...(claimed.body !== null ? { body: claimed.body } : {}) });
      [done] = (await store.sql<ActionRow>(`update managed_actions set status = 'executed', response_status = ?, response_body = ?, executed_at = now() where id = ? returning *`, [res.status, res.body, actionId])) as [ActionRow];
      await store.append(runId, 'action.executed', { action: actionId, status: res.status });
    } catch (err) {
      const e = err instanceof ApiError ? err : new ApiError('internal', undefined, { cause: err });
      // not sent, or sent with no answer: either way it is not tried again (at most once)
      await store.sql(`update managed_actions set status = 'failed', error = ?, executed_at = now() where id = ?`, [e.code, actionId]);
      await store.append(runId, 'action.failed', { action: actionId, error: e.code, message: e.message });
      throw e;
    }
    return { ...actionView(done), replayed: false };
  }

  /**
   * Cancels a run that has not ended: no turn or step after this one, and its proposed actions
   * can no longer run (each fails as cancelled). A repeat answers the run; an ended run, 409.
   */
  async cancel(accountId: string, runId: string) {
    const run = await this.own(accountId, runId);
    const store = this.#o.store;
    const done = await store.tx(async (em) => {
      const rows = await store.sql(`update managed_runs set status = 'cancelled', error = 'cancelled', lease_until = null, updated_at = now() where id = ? and status in ('running', 'waiting_approval') returning id`, [run.id], em);
      if (rows.length === 0) return false;
      const dropped = await store.sql<{ id: string }>(`update managed_actions set status = 'failed', error = 'cancelled', executed_at = now() where run_id = ? and status = 'proposed' returning id`, [run.id], em);
      await store.append(run.id, 'run.cancelled', { actions_dropped: dropped.map((a) => a.id) }, em);
      return true;
    });
    store.news.emit(run.id);
    if (!done && run.status !== 'cancelled' && (await store.run(run.id))?.status !== 'cancelled') throw new ApiError('conflict', `Run ${run.id} has already ended; only a running or waiting run can be cancelled.`);
    return this.view(accountId, run.id);
  }

  async eventsAfter(runId: string, after: number) {
    return this.#o.store.eventsAfter(runId, after);
  }
}
