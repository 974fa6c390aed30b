// Migration 0017 on a database that already holds calls: every row is carried into the
// partitioned tables, each in its month's partition, and the meter's replay of those rows
// afterwards inserts nothing twice.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/database.ts';
import { monthStart, partitionName } from '../src/db/partitions.ts';
import { createLogger } from '../src/logger.ts';
import { testDatabase, type TestDatabase } from './support/gateway.ts';

const logger = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));
const dataDir = mkdtempSync(join(tmpdir(), 'optimizer-upgrade-'));
let pg: TestDatabase | undefined;
let db: Database | undefined;
afterAll(async () => {
  await db?.close();
  await pg?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const row = (id: string, at: Date) => ({
  id, account_id: 'acct_up', workflow_id: 'wf_up', created_at: at.toISOString(), requested_model: 'm', served_model: 'm', provider: 'openai',
  stream: false, status: 200, error_code: null, prompt_tokens: 1, completion_tokens: 1, cached_tokens: 0, reasoning_tokens: 0, usage_estimated: false,
  baseline_micros: 100, served_micros: 60, actual_micros: 60, exploration_micros: 0, saving_micros: 40, saving_source: 'routing',
  cache_hit: false, reasons: [], latency_ms: 1, overhead_ms: 0, vendor_status: 200, idempotency_key: null, detail: {},
});

describe('migration 0017 on stored calls', { timeout: 120_000 }, () => {
  it('carries every call and activity row into its month, and a replay afterwards inserts nothing', async () => {
    pg = await testDatabase();
    const now = new Date();
    const old = new Date(monthStart(now, -14).getTime() + 3 * 86_400_000);
    const calls = [row('call_up_1', now), row('call_up_2', old)];
    const activity = calls.map((c) => ({ id: `${c.id}-1`, call_id: c.id, account_id: c.account_id, workflow_id: c.workflow_id, created_at: c.created_at, attempt: 1, provider: 'openai', model: 'm', status: 200, outcome: 'ok', latency_ms: 1, prompt_tokens: 1, completion_tokens: 1, cost_micros: 60 }));
    const insert = (d: Database, conflict: string) =>
      d.em().getConnection().execute(
        `with c as (insert into call_records select * from jsonb_populate_recordset(null::call_records, ?::jsonb) on conflict (${conflict}) do nothing returning id),
              a as (insert into activity select * from jsonb_populate_recordset(null::activity, ?::jsonb) on conflict (${conflict}) do nothing returning id)
         select (select count(*) from c)::int as calls, (select count(*) from a)::int as activity`,
        [JSON.stringify(calls), JSON.stringify(activity)],
      ) as Promise<{ calls: number; activity: number }[]>;

    const before = await openDatabase({ databaseUrl: pg.url, dataDir, logger, migrateTo: '0016-auto-topup' });
    expect(await insert(before, 'id')).toEqual([{ calls: 2, activity: 2 }]);
    await before.close();

    db = await openDatabase({ databaseUrl: pg.url, dataDir, logger });
    const sql = db.em().getConnection();
    const stored = (await sql.execute(`select id, tableoid::regclass::text as part from call_records order by id`)) as { id: string; part: string }[];
    expect(stored).toEqual([
      { id: 'call_up_1', part: partitionName('call_records', monthStart(now)) },
      { id: 'call_up_2', part: partitionName('call_records', monthStart(old)) },
    ]);
    const acts = (await sql.execute(`select id, tableoid::regclass::text as part from activity order by id`)) as { id: string; part: string }[];
    expect(acts.map((a) => a.part)).toEqual([partitionName('activity', monthStart(now)), partitionName('activity', monthStart(old))]);
    // the write-ahead file replayed after the upgrade: the meter's conflict target on the new key
    expect(await insert(db, 'id, created_at')).toEqual([{ calls: 0, activity: 0 }]);
    const [n] = (await sql.execute(`select count(*)::int as n from call_records`)) as { n: number }[];
    expect(n!.n).toBe(2);
  });
});
