// Calls and activity partitioned by month (migration 0017, db/partitions.ts): replays insert
// nothing twice, the retention job drops whole old months and keeps the recent ones, and the
// dashboard's reads go through indexes (and the newest partitions) on a generated history.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTenant, readQueries, seqScans } from '../../../bench/storage/generate.ts';
import { monthStart, partitionName, Partitions } from '../src/db/partitions.ts';
import type { ActivityRow, CallRow, MeterBatch } from '../src/meter/rows.ts';
import { SAVINGS_BY_SOURCE, SAVINGS_TOTALS } from '../src/reporting/calls.ts';
import { signup, startGateway, type TestGateway } from './support/gateway.ts';
import { planUses } from './support/plans.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw.close();
});

const sql = () => gw.services.db.em().getConnection();
const exec = (q: string, params: unknown[] = []) => sql().execute(q, params);

function call(id: string, t: { account_id: string; workflow_id: string }, at: Date): CallRow {
  return {
    id, account_id: t.account_id, workflow_id: t.workflow_id, created_at: at.toISOString(), requested_model: 'm', served_model: 'm', provider: 'openai',
    stream: false, status: 200, error_code: null, prompt_tokens: 1, completion_tokens: 1, cached_tokens: 0, reasoning_tokens: 0, usage_estimated: false,
    baseline_micros: 100, served_micros: 60, actual_micros: 60, exploration_micros: 0, saving_micros: 40, saving_source: 'routing',
    cache_hit: false, reasons: [], latency_ms: 1, overhead_ms: 0, vendor_status: 200, idempotency_key: null, detail: {},
  };
}

function attempt(c: CallRow): ActivityRow {
  return {
    id: `${c.id}-1`, call_id: c.id, account_id: c.account_id, workflow_id: c.workflow_id, created_at: c.created_at, attempt: 1, provider: 'openai', model: 'm',
    status: 200, outcome: 'ok', latency_ms: 1, prompt_tokens: 1, completion_tokens: 1, cost_micros: 60,
  };
}

async function count(table: string, accountId: string): Promise<number> {
  const [r] = (await exec(`select count(*)::int as n from ${table} where account_id = ?`, [accountId])) as { n: number }[];
  return r!.n;
}

describe('partitioned calls', () => {
  it('keeps calls and activity in monthly partitions, and a replayed batch inserts nothing twice', async () => {
    const kinds = (await exec(`select relname, relkind from pg_class where relname in ('call_records', 'activity') order by 1`)) as { relname: string; relkind: string }[];
    expect(kinds).toEqual([
      { relname: 'activity', relkind: 'p' },
      { relname: 'call_records', relkind: 'p' },
    ]);
    const now = new Date();
    const names = await gw.services.partitions.list('call_records');
    for (let i = 0; i <= 3; i++) expect(names).toContain(partitionName('call_records', monthStart(now, i)));
    expect(names).toContain('call_records_default');

    const t = await signup(gw);
    // one call now, one from before any partition (it lands in the default partition)
    const calls = [call('call_part_now', t, now), call('call_part_old', t, new Date(Date.UTC(2020, 0, 15)))];
    const batch: MeterBatch = { calls, activity: calls.map(attempt), events: [] };
    gw.services.meter.record(batch);
    gw.services.meter.record(batch); // the same line twice in one flush
    await gw.services.meter.flush();
    gw.services.meter.record(batch); // and again later, as the replay of a killed process's file
    await gw.services.meter.flush();

    expect(await count('call_records', t.account_id)).toBe(2);
    expect(await count('activity', t.account_id)).toBe(2);
    expect(await gw.services.callViews.savings(t.account_id)).toMatchObject({ calls: 2, saving: 0.00008 });
    const where = (await exec(`select id, tableoid::regclass::text as part from call_records where account_id = ? order by id`, [t.account_id])) as { id: string; part: string }[];
    expect(where).toEqual([
      { id: 'call_part_now', part: partitionName('call_records', monthStart(now)) },
      { id: 'call_part_old', part: 'call_records_default' },
    ]);
  });

  it('drops the months past the retention, and the default partition rows as old, keeping the recent months', async () => {
    const now = new Date();
    const job = new Partitions({ db: gw.services.db, logger: gw.services.logger, retentionDays: 90 });
    // months six to three back get their partitions, as a server running since then would have made
    expect(await job.ensure(monthStart(now, -6))).toContain(partitionName('call_records', monthStart(now, -6)));
    const t = await signup(gw);
    const old = call('call_ret_old', t, new Date(monthStart(now, -6).getTime() + 86_400_000));
    const older = call('call_ret_default', t, new Date(Date.UTC(2019, 5, 1)));
    const recent = call('call_ret_recent', t, now);
    gw.services.meter.record({ calls: [old, older, recent], activity: [old, older, recent].map(attempt), events: [] });
    await gw.services.meter.flush();

    const dropped = await job.dropExpired(now);
    for (const table of ['call_records', 'activity']) {
      expect(dropped).toContain(partitionName(table, monthStart(now, -6)));
      expect(dropped).toContain(partitionName(table, monthStart(now, -5)));
      const left = await gw.services.partitions.list(table);
      for (let i = 0; i <= 3; i++) expect(left).toContain(partitionName(table, monthStart(now, i)));
      expect(left).not.toContain(partitionName(table, monthStart(now, -6)));
    }
    const ids = (await exec(`select id from call_records where account_id = ? order by id`, [t.account_id])) as { id: string }[];
    expect(ids.map((r) => r.id)).toEqual(['call_ret_recent']);
    expect(await count('activity', t.account_id)).toBe(1);
    // a second run finds nothing more to do
    expect(await job.dropExpired(now)).toEqual([]);
  });

  it('reads the calls page, the savings and the report through indexes on a generated history', async () => {
    const now = new Date();
    for (let k = 3; k >= 1; k--) await gw.services.partitions.ensure(monthStart(now, -k));
    const big = await signup(gw, 'Big');
    const small = await signup(gw, 'Small');
    await generateTenant(exec, { accountId: big.account_id, workflowIds: [big.workflow_id, 'wf_gen_b2', 'wf_gen_b3'], calls: 24_000 }, { months: 3, end: now });
    await generateTenant(exec, { accountId: small.account_id, workflowIds: [small.workflow_id], calls: 6_000 }, { months: 3, end: now });
    for (const table of ['call_records', 'activity', 'call_totals', 'steps']) await exec(`analyze ${table}`);
    expect(await count('call_records', big.account_id)).toBe(24_000);

    const explain = async (q: string, opts = '') => ((await exec(`explain ${opts} ${q}`)) as { 'QUERY PLAN': string }[]).map((r) => r['QUERY PLAN']).join('\n');
    const [page, agentPage, totals, bySource, steps, tenantSteps] = readQueries(big.account_id, big.workflow_id, { totals: SAVINGS_TOTALS, bySource: SAVINGS_BY_SOURCE });

    // a page of calls: the newest rows of each month's index merged, no sort of the tenant's history
    const pagePlan = await explain(page!.sql, '(analyze, costs off, timing off, summary off)');
    expect(seqScans(pagePlan, 'call_records')).toEqual([]);
    expect(await planUses(gw.services.db, pagePlan, 'call_records_tenant_time_idx')).toBe(true);
    const sortNode = /^\s*(->\s+)?(Incremental )?Sort(?! Key)\b/m;
    expect(pagePlan).toMatch(/Limit[\s\S]*(Merge )?Append/);
    expect(pagePlan).not.toMatch(sortNode);
    const agentPlan = await explain(agentPage!.sql, '(analyze, costs off, timing off, summary off)');
    expect(seqScans(agentPlan, 'call_records')).toEqual([]);
    expect(agentPlan).not.toMatch(sortNode);

    // the savings and the report read small tables kept per tenant and workflow; what they
    // could not do without is an index on the tenant, so that is asserted with scans off
    const noScans = async (q: string) => {
      const plan = await gw.services.db.em().transactional(async (em) => {
        const ctx = em.getTransactionContext();
        await em.getConnection().execute('set local enable_seqscan = off', [], 'run', ctx);
        return (await em.getConnection().execute(`explain ${q}`, [], 'all', ctx)) as { 'QUERY PLAN': string }[];
      });
      return plan.map((r) => r['QUERY PLAN']).join('\n');
    };
    expect(await planUses(gw.services.db, await noScans(totals!.sql), 'call_totals_pkey')).toBe(true);
    expect(await planUses(gw.services.db, await noScans(bySource!.sql), 'call_totals_pkey')).toBe(true);
    expect(await noScans(steps!.sql)).not.toContain('Seq Scan');
    expect(await noScans(tenantSteps!.sql)).not.toContain('Seq Scan');

    // the dashboard's chart reads a window of days: only the partitions that window touches
    const since = new Date(now.getTime() - 7 * 86_400_000);
    const series = await explain(`select count(*) from call_records where account_id = '${big.account_id}' and created_at >= '${since.toISOString()}'`);
    expect(series).not.toContain(partitionName('call_records', monthStart(now, -3)));
    expect(series).toContain(partitionName('call_records', monthStart(now)));
  }, 180_000); // 30,000 generated calls and their activity on the embedded database: 42 s under load
});
