// Managed agents on a cron schedule (issue 35): one schedule per agent with the input of its
// runs, each tick starting one run under the key that set the schedule. Every replica looks for
// due ticks; the one whose conditional update moves `next_at` on from the tick it read starts the
// run, so a tick fires once across replicas. A tick found late (no gateway ran over it) fires
// once, for the most recent due tick only, when it is within the schedule's catch-up window
// (`catch_up_s`, default an hour; 0 never); older, it is skipped. Either way the next tick is the
// first one after now. A tick found within the on-time bound (a minute, or two sweeps) is on time.
import { ApiError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { Principal } from '../tenancy/key-cache.ts';
import { latestTick, nextTick, parseCron } from './cron.ts';
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
  catch_up_s: number;
  last_tick_at: Date | string | null;
}

/** How late a tick may be found and still be on time (not a missed tick): a minute, or two sweeps when they are further apart. */
const ON_TIME_MS = 60_000;

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());
const view = (r: ScheduleRow) => ({
  agent: r.agent_id,
  cron: r.cron,
  input: r.input,
  catch_up_s: r.catch_up_s,
  next_at: iso(r.next_at)!,
  last_fired_at: iso(r.last_fired_at),
  last_tick: iso(r.last_tick_at),
  last_run: r.last_run_id,
});

export class Schedules {
  readonly #store: RunStore;
  readonly #logger: Logger;
  /** Starts one run of the agent (the run cap applies): its id. */
  readonly #start: (p: Principal, agentId: string, input: string) => Promise<{ id: string }>;
  #timer: NodeJS.Timeout | null = null;
  #onTimeMs = ON_TIME_MS;
  #ticking: Promise<void> | null = null;

  constructor(store: RunStore, logger: Logger, start: (p: Principal, agentId: string, input: string) => Promise<{ id: string }>) {
    this.#store = store;
    this.#logger = logger;
    this.#start = start;
  }

  async put(p: Principal, agentId: string, cron: string, input: string, catchUpS: number) {
    const next = nextTick(parseCron(cron), new Date());
    if (next === null) throw new ApiError('validation_failed', 'cron: the expression names no minute in the next four years.', { param: 'cron' });
    const [row] = await this.#store.sql<ScheduleRow>(
      `insert into managed_schedules (agent_id, account_id, key_id, cron, input, next_at, catch_up_s) values (?, ?, ?, ?, ?, ?, ?)
        on conflict (agent_id) do update set key_id = excluded.key_id, cron = excluded.cron, input = excluded.input, next_at = excluded.next_at, catch_up_s = excluded.catch_up_s
        returning *`,
      [agentId, p.accountId, p.keyId, cron.trim(), input, next.toISOString(), catchUpS],
    );
    return view(row!);
  }

  /** The agent's schedule, or null. */
  async get(accountId: string, agentId: string) {
    const [row] = await this.#store.sql<ScheduleRow>('select * from managed_schedules where agent_id = ? and account_id = ?', [agentId, accountId]);
    return row ? view(row) : null;
  }

  async remove(accountId: string, agentId: string) {
    const rows = await this.#store.sql('delete from managed_schedules where agent_id = ? and account_id = ? returning agent_id', [agentId, accountId]);
    if (rows.length === 0) throw new ApiError('not_found', `Managed agent ${agentId} has no schedule.`);
    return { agent: agentId, deleted: true as const };
  }

  /**
   * Fires every due tick this replica wins; the others' are theirs. A due schedule fires once, for
   * its most recent due tick, when that tick is on time or within its catch-up window; a schedule
   * whose due ticks are all older is moved on without a run.
   */
  async fireDue(now = new Date()): Promise<void> {
    const due = await this.#store.sql<ScheduleRow>('select * from managed_schedules where next_at <= ? order by next_at limit 50', [now.toISOString()]);
    for (const s of due) {
      const cron = parseCron(s.cron);
      const window = Math.max(this.#onTimeMs, s.catch_up_s * 1000);
      const first = new Date(s.next_at); // the first tick not yet fired: a tick of the expression
      const from = new Date(Math.max(first.getTime(), now.getTime() - window));
      const tick = latestTick(cron, now, from) ?? (first >= from ? first : null);
      const next = nextTick(cron, now);
      const won = await this.#store.sql(
        `update managed_schedules set next_at = ?, last_fired_at = case when ? then now() else last_fired_at end, last_tick_at = coalesce(?, last_tick_at) where agent_id = ? and next_at = ? returning agent_id`,
        [(next ?? new Date('9999-01-01T00:00:00Z')).toISOString(), tick !== null, tick?.toISOString() ?? null, s.agent_id, s.next_at],
      );
      if (won.length === 0) continue; // another replica took this tick
      if (tick === null) {
        this.#logger.info({ agent: s.agent_id, missed_from: iso(s.next_at), catch_up_s: s.catch_up_s }, 'managed schedule: missed ticks older than the catch-up window were skipped');
        continue;
      }
      try {
        const [agent] = await this.#store.sql<{ workflow_id: string }>('select workflow_id from managed_agents where id = ?', [s.agent_id]);
        const run = await this.#start({ accountId: s.account_id, workflowId: agent!.workflow_id, keyId: s.key_id }, s.agent_id, s.input);
        await this.#store.sql('update managed_schedules set last_run_id = ? where agent_id = ?', [run.id, s.agent_id]);
      } catch (err) {
        this.#logger.warn({ agent: s.agent_id, err: (err as Error).message }, 'managed schedule: the tick started no run');
      }
    }
  }

  /** Looks for due ticks now (a tick missed while no gateway ran is caught up at start) and every `everyMs`. */
  start(everyMs: number): void {
    this.#onTimeMs = Math.max(ON_TIME_MS, 2 * everyMs);
    const sweep = () => {
      if (this.#ticking) return;
      this.#ticking = this.fireDue()
        .catch((err: Error) => this.#logger.warn({ err: err.message }, 'managed schedules: the tick failed'))
        .finally(() => (this.#ticking = null));
    };
    sweep();
    this.#timer = setInterval(sweep, everyMs);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    await this.#ticking;
  }
}
