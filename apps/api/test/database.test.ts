import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres, startGateway, type TestGateway } from './support/gateway.ts';
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
  it('is the embedded PGlite under DATA_DIR by default, and the real PostgreSQL when DATABASE_URL is set', async () => {
    const [{ version }] = (await gw.services.db.em().getConnection().execute('select version()')) as [{ version: string }];
    if (onPostgres) {
      expect(gw.services.db.kind).toBe('postgres');
      expect(version).not.toContain('PGlite');
    } else {
      expect(gw.services.db.kind).toBe('pglite');
      expect(version).toContain('PGlite');
      expect(existsSync(join(gw.dataDir, 'pgdata'))).toBe(true);
    }
  });

  it('applies every migration at start', async () => {
    const rows = (await gw.services.db.em().getConnection().execute('select name from mikro_orm_migrations order by id')) as { name: string }[];
    expect(rows.map((r) => r.name)).toEqual(['0001-foundation', '0002-events', '0003-custom-providers', '0004-optimizer', '0005-steps-discovery', '0006-semantic-cache', '0007-lookup-indexes']);
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
    expect(await planWithoutScans(runCalls)).toContain('call_records_run_idx');
    // the evidence poll (optimizer/optimizer.ts)
    const poll = `select * from evidence where created_at > '2026-01-01' order by created_at asc limit 20000`;
    expect(await planWithoutScans(poll)).toContain('evidence_time_idx');
    // the semantic cache's sweep (cache/semantic-cache.ts)
    expect(await planWithoutScans(`delete from semantic_cache_entries where expires_at <= now()`)).toContain('semantic_cache_entries_expiry_idx');
  });

  it('refuses a second process on the same data directory, naming the owner', async () => {
    const err = await spawnGateway({ DATA_DIR: gw.dataDir, ADMIN_KEY: 'admin-key-for-the-second-process' }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toContain(`is in use by process ${process.pid}`);
  });
});
