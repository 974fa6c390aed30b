// Managed agents on a cron schedule (issue 35): one schedule per agent with the input of its
// runs, each tick starting one run under the key that set the schedule. Every replica looks for
// due ticks; the one whose conditional update moves `next_at` on from the tick it read starts the
// run, so a tick fires once across replicas. Ticks missed while no replica ran are not caught up:
// the next tick is the first one after now.
import { ApiError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { Principal } from '../tenancy/key-cache.ts';
import { nextTick, parseCron } from './cron.ts';
import type { RunStore } from './run-store.ts';

interface ScheduleRow {
  agent_id: string;
  account_id: string;
  key_id: string;
  cron: string;
  input: string;
  next_at: Date | string;
  last_fired_at: Date | string | null;
  last_run_id: string | null;
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());
const view = (r: ScheduleRow) => ({ agent: r.agent_id, cron: r.cron, input: r.input, next_at: iso(r.next_at)!, last_fired_at: iso(r.last_fired_at), last_run: r.last_run_id });

export class Schedules {
  readonly #store: RunStore;
  readonly #logger: Logger;
  /** Starts one run of the agent (the run cap applies): its id. */
  readonly #start: (p: Principal, agentId: string, input: string) => Promise<{ id: string }>;
  #timer: NodeJS.Timeout | null = null;
  #ticking: Promise<void> | null = null;

  constructor(store: RunStore, logger: Logger, start: (p: Principal, agentId: string, input: string) => Promise<{ id: string }>) {
    this.#store = store;
    this.#logger = logger;
    this.#start = start;
  }

  async put(p: Principal, agentId: string, cron: string, input: string) {
    const next = nextTick(parseCron(cron), new Date());
    if (next === null) throw new ApiError('validation_failed', 'cron: the expression names no minute in the next four years.', { param: 'cron' });
    const [row] = await this.#store.sql<ScheduleRow>(
      `insert into managed_schedules (agent_id, account_id, key_id, cron, input, next_at) values (?, ?, ?, ?, ?, ?)
        on conflict (agent_id) do update set key_id = excluded.key_id, cron = excluded.cron, input = excluded.input, next_at = excluded.next_at
        returning *`,
      [agentId, p.accountId, p.keyId, cron.trim(), input, next.toISOString()],
    );
    return view(row!);
  }

  async remove(accountId: string, agentId: string) {
    const rows = await this.#store.sql('delete from managed_schedules where agent_id = ? and account_id = ? returning agent_id', [agentId, accountId]);
    if (rows.length === 0) throw new ApiError('not_found', `Managed agent ${agentId} has no schedule.`);
    return { agent: agentId, deleted: true as const };
  }

  /** Fires every due tick this replica wins; the others' are theirs. */
  async fireDue(now = new Date()): Promise<void> {
    const due = await this.#store.sql<ScheduleRow>('select * from managed_schedules where next_at <= ? order by next_at limit 50', [now.toISOString()]);
    for (const s of due) {
      const next = nextTick(parseCron(s.cron), now > new Date(s.next_at) ? now : new Date(s.next_at));
      const won = await this.#store.sql(
        `update managed_schedules set next_at = ?, last_fired_at = now() where agent_id = ? and next_at = ? returning agent_id`,
        [(next ?? new Date('9999-01-01T00:00:00Z')).toISOString(), s.agent_id, s.next_at],
      );
      if (won.length === 0) continue; // another replica fired this tick
      try {
        const [agent] = await this.#store.sql<{ workflow_id: string }>('select workflow_id from managed_agents where id = ?', [s.agent_id]);
        const run = await this.#start({ accountId: s.account_id, workflowId: agent!.workflow_id, keyId: s.key_id }, s.agent_id, s.input);
        await this.#store.sql('update managed_schedules set last_run_id = ? where agent_id = ?', [run.id, s.agent_id]);
      } catch (err) {
        this.#logger.warn({ agent: s.agent_id, err: (err as Error).message }, 'managed schedule: the tick started no run');
      }
    }
  }

  start(everyMs: number): void {
    this.#timer = setInterval(() => {
      if (this.#ticking) return;
      this.#ticking = this.fireDue()
        .catch((err: Error) => this.#logger.warn({ err: err.message }, 'managed schedules: the tick failed'))
        .finally(() => (this.#ticking = null));
    }, everyMs);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    await this.#ticking;
  }
}
