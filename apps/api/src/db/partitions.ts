// The monthly partitions of the tables that grow with every call (migration 0017): the
// months ahead are created before rows arrive, and months wholly older than the retention
// are dropped, a whole partition at once (no row-by-row delete, no bloat to vacuum). Runs
// at start and every few hours on every replica; each step is idempotent, so replicas
// running it together do the same work once and ignore each other's leftovers.
import type { Database } from './database.ts';
import type { Logger } from '../logger.ts';
import { MONTHS_AHEAD, monthOf, monthStart, PARTITION_JOB_MS, partitionName, PARTITIONED } from './partition-names.ts';

export { MONTHS_AHEAD, PARTITION_JOB_MS, monthOf, monthStart, partitionName, PARTITIONED } from './partition-names.ts';


export class Partitions {
  readonly #db: Database;
  readonly #logger: Logger;
  readonly #retentionDays: number;
  #timer: NodeJS.Timeout | null = null;

  constructor(opts: { db: Database; logger: Logger; retentionDays: number }) {
    this.#db = opts.db;
    this.#logger = opts.logger;
    this.#retentionDays = opts.retentionDays;
  }

  /** Runs once now (the months ahead must exist before the first call), then on a timer. */
  async start(): Promise<void> {
    await this.run();
    this.#timer = setInterval(() => void this.run().catch((err: unknown) => this.#logger.warn({ err }, 'partition maintenance failed; it runs again later')), PARTITION_JOB_MS);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
  }

  async run(now = new Date()): Promise<{ created: string[]; dropped: string[] }> {
    const created = await this.ensure(now);
    const dropped = await this.dropExpired(now);
    return { created, dropped };
  }

  /** The partitions of each table, by name. */
  async list(table: string): Promise<string[]> {
    const rows = (await this.#db
      .em()
      .getConnection()
      .execute(
        `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
          where p.relname = ? and p.relnamespace = to_regnamespace(current_schema()) order by 1`,
        [table],
      )) as { name: string }[];
    return rows.map((r) => r.name);
  }

  /** Creates the current month's partition and the next MONTHS_AHEAD; returns those it made. */
  async ensure(now = new Date()): Promise<string[]> {
    const made: string[] = [];
    for (const table of PARTITIONED) {
      const have = new Set(await this.list(table));
      for (let i = 0; i <= MONTHS_AHEAD; i++) {
        const from = monthStart(now, i);
        const name = partitionName(table, from);
        if (have.has(name)) continue;
        try {
          await this.#inTransaction([
            `set local lock_timeout = '5s'`,
            `create table if not exists ${name} partition of ${table} for values from ('${from.toISOString()}') to ('${monthStart(now, i + 1).toISOString()}')`,
          ]);
          made.push(name);
        } catch (err) {
          // another replica made it a moment ago, its lock waited too long (it is made at the next run,
          // months ahead of need), or the default partition already holds rows of that month (they
          // stay there, still read and still dropped by age); none of these stops the others
          this.#logger.warn({ err: String(err), partition: name }, 'could not create a partition; its rows go to the default partition');
        }
      }
    }
    if (made.length) this.#logger.info({ partitions: made }, 'created partitions ahead');
    return made;
  }

  /**
   * Drops the months that end before now minus the retention, and deletes the default
   * partition's rows and the savings chart's rollups older than it. Each drop waits at most a
   * few seconds for its lock, so a long read does not queue every insert behind the drop; a drop
   * that times out runs next time.
   */
  async dropExpired(now = new Date()): Promise<string[]> {
    const cutoff = new Date(now.getTime() - this.#retentionDays * 86_400_000);
    const dropped: string[] = [];
    for (const table of PARTITIONED) {
      for (const name of await this.list(table)) {
        const month = monthOf(name);
        if (!month || monthStart(month, 1) > cutoff) continue;
        try {
          await this.#inTransaction([`set local lock_timeout = '5s'`, `drop table if exists ${name}`]);
          dropped.push(name);
        } catch (err) {
          this.#logger.warn({ err: String(err), partition: name }, 'could not drop an expired partition; it is dropped at the next run');
        }
      }
      await this.#db.em().getConnection().execute(`delete from ${table}_default where created_at < ?`, [cutoff.toISOString()]);
    }
    // the savings chart's rollups of the months dropped (a few thousand rows a tenant-month); the
    // cutoff's own month keeps its calls, so it keeps its rollups
    await this.#db.em().getConnection().execute(`delete from call_rollups where at < ?`, [monthStart(cutoff).toISOString()]);
    // learning lines already applied to their calls (migration 0023): a write-ahead line a week old is never replayed
    await this.#db.em().getConnection().execute(`delete from call_learning where applied and created_at < ?`, [new Date(now.getTime() - 7 * 86_400_000).toISOString()]);
    if (dropped.length) this.#logger.info({ partitions: dropped, retentionDays: this.#retentionDays }, 'dropped partitions past the retention');
    return dropped;
  }

  async #inTransaction(statements: string[]): Promise<void> {
    await this.#db.em().transactional(async (em) => {
      const ctx = em.getTransactionContext();
      for (const sql of statements) await em.getConnection().execute(sql, [], 'run', ctx);
    });
  }
}
