// Where managed runs live: the runs, their ordered events (the SSE ids), the actions they
// propose, and the month's run counter the cap is checked against. Plain SQL, one job.
import { EventEmitter } from 'node:events';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Database } from '../db/database.ts';
import { newId } from '../security/secrets.ts';
import { sqlIn } from '../db/sql-in.ts';

export type RunStatus = 'running' | 'waiting_approval' | 'completed' | 'failed' | 'cancelled';

export interface RunState {
  /** The next chain step to run. */
  next: number;
  /** Each finished step's answer, by step name. */
  outputs: Record<string, string>;
  /** How many times a runner has started on the current step (a crash loop ends the run). */
  attempts: number;
  output?: string;
}

export interface RunRow {
  id: string;
  account_id: string;
  agent_id: string | null;
  workflow_id: string;
  key_id: string;
  kind: 'chain' | 'action';
  config: Record<string, any>;
  input: string;
  status: RunStatus;
  state: RunState;
  error: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

export interface EventRow {
  seq: number;
  type: string;
  data: Record<string, unknown>;
  created_at: Date | string;
}

export interface ActionRow {
  id: string;
  run_id: string;
  account_id: string;
  connection: string;
  method: 'GET' | 'POST';
  path: string;
  body: string | null;
  status: 'proposed' | 'executing' | 'executed' | 'failed';
  response_status: number | null;
  response_body: string | null;
  error: string | null;
  created_at: Date | string;
  executed_at: Date | string | null;
}

export class RunStore {
  readonly #db: Database;
  /** How long a runner holds a run before another replica (or this one, restarted) may take it over. */
  readonly leaseSeconds: number;
  /** Tells this replica's event readers that a run has news (others poll). */
  readonly news = new EventEmitter().setMaxListeners(0);

  constructor(db: Database, leaseSeconds = 30) {
    this.#db = db;
    this.leaseSeconds = Math.trunc(leaseSeconds);
  }

  sql<T>(q: string, params: unknown[] = [], em?: EntityManager): Promise<T[]> {
    return sqlIn(em ?? this.#db.em())<T>(q, params);
  }

  tx<T>(fn: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.#db.em().transactional(fn);
  }

  /** Counts one run against the month's cap, atomically across replicas: the new count, or null when the cap is spent. */
  async countRun(accountId: string, month: string, cap: number, em: EntityManager): Promise<number | null> {
    if (cap <= 0) return null;
    const rows = await this.sql<{ used: number }>(
      `insert into managed_run_counts (account_id, month, used) values (?, ?, 1)
        on conflict (account_id, month) do update set used = managed_run_counts.used + 1 where managed_run_counts.used < ?
        returning used`,
      [accountId, month, cap],
      em,
    );
    return rows[0]?.used ?? null;
  }

  async used(accountId: string, month: string): Promise<number> {
    const [r] = await this.sql<{ used: number }>('select used from managed_run_counts where account_id = ? and month = ?', [accountId, month]);
    return r?.used ?? 0;
  }

  async run(id: string, accountId?: string): Promise<RunRow | null> {
    const [r] = await this.sql<RunRow>(`select * from managed_runs where id = ?${accountId ? ' and account_id = ?' : ''}`, accountId ? [id, accountId] : [id]);
    return r ?? null;
  }

  /** Appends an event after the run's last one (in `em`'s transaction when given); its seq is the SSE id. */
  async append(runId: string, type: string, data: Record<string, unknown>, em?: EntityManager): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      try {
        const [r] = await this.sql<{ seq: number }>(
          `insert into managed_run_events (run_id, seq, type, data)
            select ?, coalesce(max(seq), 0) + 1, ?, ? from managed_run_events where run_id = ? returning seq`,
          [runId, type, JSON.stringify(data), runId],
          em,
        );
        if (!em) this.news.emit(runId);
        return r!.seq;
      } catch (err) {
        // two writers took the same seq (an action executed while another finished): the second tries again
        if ((err as { code?: string }).code !== '23505' || attempt >= 5 || em) throw err;
      }
    }
  }

  /** Whether a person cancelled the run (a runner stops at its next turn or step, and keeps nothing a cancelled turn answered). */
  async cancelled(runId: string, em?: EntityManager): Promise<boolean> {
    const [r] = await this.sql<{ status: string }>(`select status from managed_runs where id = ?${em ? ' for update' : ''}`, [runId], em);
    return r?.status === 'cancelled';
  }

  async eventsAfter(runId: string, after: number): Promise<EventRow[]> {
    return this.sql<EventRow>('select seq, type, data, created_at from managed_run_events where run_id = ? and seq > ? order by seq limit 500', [runId, after]);
  }

  /**
   * Records an action the model proposed; returns its id. Actions list in the order they were
   * added (their `ord`), not by time: the embedded database's clock ticks in milliseconds, so
   * the actions of one turn often share a time.
   */
  async addAction(run: Pick<RunRow, 'id' | 'account_id'>, connection: string, call: { method: string; path: string; body?: unknown }, em?: EntityManager): Promise<string> {
    const id = newId('act');
    await this.sql(`insert into managed_actions (id, run_id, account_id, connection, method, path, body, created_at) values (?, ?, ?, ?, ?, ?, ?, clock_timestamp())`, [id, run.id, run.account_id, connection, call.method, call.path, call.body === undefined ? null : JSON.stringify(call.body)], em);
    return id;
  }

  async actions(runId: string): Promise<ActionRow[]> {
    return this.sql<ActionRow>('select * from managed_actions where run_id = ? order by ord', [runId]);
  }

  /** Takes a running run whose lease is free or expired; null when another runner holds it. */
  async claim(id: string): Promise<RunRow | null> {
    const [r] = await this.sql<RunRow>(
      `update managed_runs set lease_until = now() + interval '${this.leaseSeconds} seconds' where id = ? and status = 'running' and (lease_until is null or lease_until < now()) returning *`,
      [id],
    );
    return r ?? null;
  }

  async renew(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.sql(`update managed_runs set lease_until = now() + interval '${this.leaseSeconds} seconds' where id in (${ids.map(() => '?').join(',')}) and status = 'running'`, ids);
  }

  async release(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.sql(`update managed_runs set lease_until = null where id in (${ids.map(() => '?').join(',')}) and status = 'running'`, ids);
  }

  /** Running runs no runner holds (free or expired lease). */
  async orphans(): Promise<string[]> {
    const rows = await this.sql<{ id: string }>(`select id from managed_runs where status = 'running' and (lease_until is null or lease_until < now()) order by created_at limit 50`);
    return rows.map((r) => r.id);
  }
}
