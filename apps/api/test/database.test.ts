import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres, signup, startGateway, testDatabase, type TestGateway } from './support/gateway.ts';
import { planUses } from './support/plans.ts';
import { spawnGateway } from './support/process.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw.close();
});

describe('the database', () => {
  // Regression: the embedded connection once parsed to localhost:5432 and silently used the machine's server.
  // This file runs on the embedded database (vitest.config.ts) and starts a gateway on PostgreSQL beside it.
  it('is the embedded PGlite under DATA_DIR by default, and the real PostgreSQL when DATABASE_URL is set', async () => {
    const versionOf = async (g: TestGateway) => ((await g.services.db.em().getConnection().execute('select version()')) as [{ version: string }])[0].version;
    if (!onPostgres) {
      expect(gw.services.db.kind).toBe('pglite');
      expect(await versionOf(gw)).toContain('PGlite');
      expect(existsSync(join(gw.dataDir, 'pgdata'))).toBe(true);
    }
    const database = onPostgres ? null : await testDatabase({ force: true });
    const server = database ? await startGateway({ database }) : gw;
    try {
      expect(server.services.db.kind).toBe('postgres');
      expect(await versionOf(server)).not.toContain('PGlite');
      expect(existsSync(join(server.dataDir, 'pgdata'))).toBe(false);
    } finally {
      if (database) {
        await server.close();
        await database.drop();
      }
    }
  });

  it('applies every migration at start', async () => {
    const rows = (await gw.services.db.em().getConnection().execute('select name from mikro_orm_migrations order by id')) as { name: string }[];
    expect(rows.map((r) => r.name)).toEqual(['0001-foundation', '0002-events', '0003-custom-providers', '0004-optimizer', '0005-steps-discovery', '0006-semantic-cache', '0007-lookup-indexes', '0008-call-totals', '0009-workflow-life', '0010-tenant-settings', '0012-billing', '0013-alerts', '0014-recordings', '0015-managed-agents', '0016-auto-topup', '0017-partitioned-calls', '0018-action-order', '0019-call-rollups', '0020-meter-quarantine', '0021-signup-allowance', '0022-evidence-texts', '0023-call-learning', '0024-paid-production', '0025-managed-schedules', '0026-fee-carry', '0027-schedule-catch-up']);
  });

  /** The plan PostgreSQL makes for a query when it may not read whole tables. */
  async function planWithoutScans(query: string): Promise<string> {
    const plan = await gw.services.db.em().transactional(async (em) => {
      const ctx = em.getTransactionContext();
      await em.getConnection().execute('set local enable_seqscan = off', [], 'run', ctx);
      return (await em.getConnection().execute(`explain ${query}`, [], 'all', ctx)) as { 'QUERY PLAN': string }[];
    });
    return plan.map((r) => r['QUERY PLAN']).join('\n');
  }

  it("finds a run's routed calls, the evidence newer than a replica's cursor and expired cache entries through indexes", async () => {
    // the query an outcome runs when this replica did not serve the run (optimizer/outcomes.ts)
    const runCalls = `select id from call_records where account_id = 'acct' and detail->'annotation'->'run'->>'id' = 'run-1' and detail->'optimizer' is not null and detail->'optimizer'->>'step' = 'plan'`;
    // (call_records is partitioned by month: each partition holds its own copy of the index)
    expect(await planUses(gw.services.db, await planWithoutScans(runCalls), 'call_records_run_idx')).toBe(true);
    // the evidence poll (optimizer/optimizer.ts)
    const poll = `select * from evidence where created_at > '2026-01-01' order by created_at asc limit 20000`;
    expect(await planWithoutScans(poll)).toContain('evidence_time_idx');
    // a step's calls, newest first (reporting/step-calls.ts)
    const stepCalls = `select id from call_records where account_id = 'acct' and workflow_id = 'wf' and detail->'optimizer' is not null and detail->'optimizer'->>'fingerprint' = 'fp' order by created_at desc, id desc limit 50`;
    expect(await planUses(gw.services.db, await planWithoutScans(stepCalls), 'call_records_step_idx')).toBe(true);
    // the semantic cache's sweep (cache/semantic-cache.ts)
    expect(await planWithoutScans(`delete from semantic_cache_entries where expires_at <= now()`)).toContain('semantic_cache_entries_expiry_idx');
  });

  it('keeps call totals that match the stored calls, also when a batch is written again (a replay)', async () => {
    const t = await signup(gw);
    const call = (id: string, source: string | null, saving: number) => ({
      id, account_id: t.account_id, workflow_id: t.workflow_id, created_at: new Date().toISOString(), requested_model: 'm', served_model: 'm', provider: 'openai',
      stream: false, status: 200, error_code: null, prompt_tokens: 1, completion_tokens: 1, cached_tokens: 0, reasoning_tokens: 0, usage_estimated: false,
      baseline_micros: 100, served_micros: 100 - saving, actual_micros: 100 - saving, exploration_micros: 0, saving_micros: saving, saving_source: source,
      cache_hit: false, reasons: [], latency_ms: 1, overhead_ms: 0, vendor_status: 200, idempotency_key: null, detail: {},
    });
    const batch = { calls: [call('call_tot_1', 'routing', 40), call('call_tot_2', 'cache', 100), call('call_tot_3', null, 0)], activity: [], events: [] };
    gw.services.meter.record(batch);
    await gw.services.meter.flush();
    gw.services.meter.record(batch); // the same rows again, as a replay after a crash writes them
    await gw.services.meter.flush();
    const savings = await gw.services.callViews.savings(t.account_id);
    expect(savings).toEqual({ calls: 3, baseline_cost: 0.0003, actual_cost: 0.00016, saving: 0.00014, by_source: { cache: 0.0001, routing: 0.00004, ttc: 0, trace: 0 } });
    const [stored] = (await gw.services.db.em().getConnection().execute(
      'select count(*)::int as calls, sum(saving_micros)::int as saving from call_records where account_id = ?',
      [t.account_id],
    )) as { calls: number; saving: number }[];
    expect(stored).toEqual({ calls: 3, saving: 140 });
    const [agent] = await gw.services.accounts.listAgents(t.account_id);
    expect(agent).toMatchObject({ calls: 3 });
  });

  it('refuses a second process on the same data directory, naming the owner', async () => {
    const err = await spawnGateway({ DATA_DIR: gw.dataDir, ADMIN_KEY: 'admin-key-for-the-second-process' }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toContain(`is in use by process ${process.pid}`);
  }, 120_000); // a process start (spawnGateway allows 120 s): past a 30 s timeout the first gateway stops, and the second starts and is left running
});
