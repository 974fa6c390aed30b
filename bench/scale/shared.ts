// The shared state the replicas use — one PostgreSQL database made for the run, one Redis db
// index the run owns — and what they cost: CPU from /proc (PostgreSQL: the backends of the run's
// database), round trips from the servers' counters.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createClient } from 'redis';
import { cpuTicks } from '../overhead/procs.ts';

const OWNER_KEY = 'bench-scale:owner';

export interface SharedState {
  databaseUrl: string;
  redisUrl: string;
  redisDb: number;
  /** CPU ticks so far of the PostgreSQL backends serving the run's database (by pid) and of Redis. */
  cpu(): Promise<CpuReading>;
  /** Round-trip counters: PostgreSQL transactions in the run's database, Redis commands (all, less the benchmark's own). */
  roundTrips(): Promise<RoundTrips>;
  close(): Promise<void>;
}

export interface CpuReading {
  postgres: Map<number, number>;
  redis: number;
}

/** PostgreSQL CPU between two readings: every backend there at the end, less what it had at the start (a new one counts whole). */
export function postgresTicks(before: CpuReading, after: CpuReading): number {
  let sum = 0;
  for (const [pid, t] of after.postgres) sum += t - (before.postgres.get(pid) ?? 0);
  return sum;
}

export interface RoundTrips {
  pgXacts: number;
  redisCommands: number;
  redisByCommand: Record<string, number>;
}

export interface SharedOptions {
  pgAdminUrl: string;
  redisBase: string;
  redisDb: number;
}

export async function openShared(o: SharedOptions): Promise<SharedState> {
  const name = `bench_scale_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: o.pgAdminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const databaseUrl = o.pgAdminUrl.replace(/\/[^/]*$/, `/${name}`);
  const redisUrl = `${o.redisBase.replace(/\/\d*$/, '')}/${o.redisDb}`;
  const redis = createClient({ url: redisUrl });
  await redis.connect();
  const size = await redis.dbSize();
  if (size > 0 && (await redis.get(OWNER_KEY)) === null) {
    await redis.quit();
    await admin.query(`drop database ${name}`);
    await admin.end();
    throw new Error(`Redis db ${o.redisDb} holds ${size} keys that are not this benchmark's: choose a free one with --redis-db N`);
  }
  await redis.flushDb();
  await redis.set(OWNER_KEY, String(process.pid));
  const redisPid = Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1]);
  let ownCommands = 0;
  return {
    databaseUrl,
    redisUrl,
    redisDb: o.redisDb,
    async cpu() {
      // the backends of this database only: the server may serve other work meanwhile
      const r = await admin.query<{ pid: number }>(`select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`, [name]);
      const postgres = new Map<number, number>();
      for (const { pid } of r.rows) {
        try {
          postgres.set(pid, cpuTicks(pid));
        } catch {
          // ended meanwhile
        }
      }
      return { postgres, redis: cpuTicks(redisPid) };
    },
    async roundTrips() {
      const x = await admin.query<{ n: string }>(`select (xact_commit + xact_rollback)::text as n from pg_stat_database where datname = $1`, [name]);
      const stats = await redis.info('commandstats');
      ownCommands += 1;
      let total = 0;
      const redisByCommand: Record<string, number> = {};
      for (const m of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
        total += Number(m[2]);
        redisByCommand[m[1]!] = Number(m[2]);
      }
      return { pgXacts: Number(x.rows[0]?.n ?? 0), redisCommands: total - ownCommands, redisByCommand };
    },
    async close() {
      await redis.flushDb().catch(() => {});
      await redis.quit().catch(() => {});
      await admin.query(`drop database if exists ${name} with (force)`).catch(() => {});
      await admin.end().catch(() => {});
    },
  };
}
