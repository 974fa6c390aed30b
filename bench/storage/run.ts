// The storage benchmark (issue 20, acceptance 4): a PostgreSQL database of its own filled with
// millions of generated calls (INSERT ... SELECT over generate_series, not through the
// gateway), ANALYZEd, then the dashboard's reads timed through a running gateway on it, and
// each read's main statement shown with EXPLAIN (ANALYZE, BUFFERS), checked to read no
// whole partition of the big tables. The database is dropped at the end (--keep keeps it).
//   node bench/storage/run.ts [--calls 10000000] [--months 12] [--requests 300] [--keep]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { buildApp } from '../../apps/api/src/app.ts';
import { loadConfig } from '../../apps/api/src/config.ts';
import { monthStart } from '../../apps/api/src/db/partitions.ts';
import { createLogger } from '../../apps/api/src/logger.ts';
import { SAVINGS_BY_SOURCE, SAVINGS_TOTALS } from '../../apps/api/src/reporting/calls.ts';
import { createServices } from '../../apps/api/src/services.ts';
import { readFlags, UsageError } from '../flags.ts';
import { generateTenant, readQueries, seqScans } from './generate.ts';

const USAGE = `usage: node bench/storage/run.ts [options]   (or: npm run bench:storage -- [options])
  --calls N        calls generated over all tenants (default 10000000)
  --months N       months of history they span (default 12)
  --requests N     timed requests per read (default 300, after 30 warm-up)
  --pg URL         PostgreSQL server, as an admin (default postgres://postgres@127.0.0.1:5432/postgres)
  --keep           keep the database afterwards (its name is printed)
  --logged         fill logged partitions (default: unlogged while generating; reads are the same)`;

/** The tenants' shares of the calls: one large tenant (the one timed), three smaller. */
const SHARES = [0.4, 0.3, 0.2, 0.1];
const WORKFLOWS = 5;

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

const round = (x: number) => Math.round(x * 100) / 100;

async function main(): Promise<void> {
  const { flags, switches } = readFlags(process.argv.slice(2), USAGE, { known: ['calls', 'months', 'requests', 'pg'], switches: ['keep', 'logged'] });
  for (const k of flags.keys()) if (!['calls', 'months', 'requests', 'pg'].includes(k)) throw new UsageError(`unknown option --${k}\n${USAGE}`);
  const total = Number(flags.get('calls') ?? 10_000_000);
  const months = Number(flags.get('months') ?? 12);
  const requests = Number(flags.get('requests') ?? 300);
  const admin = flags.get('pg') ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  if (!(total >= 1000) || !(months >= 1) || !(requests >= 10)) throw new UsageError(`--calls ≥ 1000, --months ≥ 1, --requests ≥ 10\n${USAGE}`);

  const name = `storage_bench_${process.pid}`;
  const psql = (sql: string) => execFileSync('psql', [admin, '-v', 'ON_ERROR_STOP=1', '-qc', sql], { stdio: ['ignore', 'ignore', 'inherit'] });
  psql(`create database ${name}`);
  const url = admin.replace(/\/[^/]*$/, `/${name}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'optimizer-bench-storage-'));
  const log = (line: string) => console.error(`[bench:storage] ${line}`);
  log(`database ${name}; ${total.toLocaleString('en')} calls over ${months} months`);
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn', DATABASE_URL: url, ADMIN_KEY: `admin-bench-storage-${'x'.repeat(24)}` });
  const services = await createServices(config, createLogger('warn', new Writable({ write: (_c, _e, cb) => cb() })), { announceAdminKey: () => undefined });
  const app = await buildApp(services);
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const addr = app.server.address();
    const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    const conn = services.db.em().getConnection();
    const exec = (q: string, params: unknown[] = []) => conn.execute(q, params);

    // the history's months get their partitions, as a server running that long would have made them
    const now = new Date();
    for (let k = months; k >= 1; k--) await services.partitions.ensure(monthStart(now, -k));
    // Unlogged partitions fill without writing the history twice (table and WAL); reads are the
    // same, and this database is thrown away. --logged keeps them logged.
    if (!switches.has('logged')) {
      for (const table of ['call_records', 'activity']) for (const p of await services.partitions.list(table)) await exec(`alter table ${p} set unlogged`);
    }
    const tenants: { key: string; accountId: string; workflowId: string; calls: number }[] = [];
    const genStart = performance.now();
    for (const [i, share] of SHARES.entries()) {
      const r = await fetch(`${base}/v1/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ company: `Bench ${i}`, email: `bench-${i}-${process.pid}@example.com` }) });
      if (r.status !== 201) throw new Error(`signup: ${r.status} ${await r.text()}`);
      const t = (await r.json()) as { api_key: string; account_id: string; workflow_id: string };
      const calls = Math.round(total * share);
      const workflowIds = [t.workflow_id, ...Array.from({ length: WORKFLOWS - 1 }, (_, w) => `wf_gen_${i}_${w}`)];
      await generateTenant(exec, { accountId: t.account_id, workflowIds, calls }, { months, end: now, progress: (done) => log(`tenant ${i}: ${done.toLocaleString('en')} / ${calls.toLocaleString('en')} calls (${Math.round((performance.now() - genStart) / 1000)} s)`) });
      tenants.push({ key: t.api_key, accountId: t.account_id, workflowId: t.workflow_id, calls });
    }
    const generateS = (performance.now() - genStart) / 1000;
    const anaStart = performance.now();
    await exec('vacuum analyze call_records');
    await exec('vacuum analyze activity');
    await exec('analyze call_totals');
    await exec('analyze call_rollups');
    await exec('analyze steps');
    const analyzeS = (performance.now() - anaStart) / 1000;
    const [sizes] = (await exec(
      `select (select count(*) from call_records)::bigint as calls, (select count(*) from activity)::bigint as activity,
              pg_size_pretty(sum(pg_total_relation_size(c.oid)) filter (where p.relname = 'call_records')) as call_bytes,
              pg_size_pretty(sum(pg_total_relation_size(c.oid)) filter (where p.relname = 'activity')) as activity_bytes
         from pg_inherits i join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent where p.relname in ('call_records', 'activity')`,
    )) as { calls: string; activity: string; call_bytes: string; activity_bytes: string }[];
    log(`generated in ${Math.round(generateS)} s, vacuum analyze ${Math.round(analyzeS)} s: ${JSON.stringify(sizes)}`);

    // the reads, through the gateway, as the dashboard makes them, for the largest tenant
    const big = tenants[0]!;
    const reads = [
      { name: 'GET /v1/calls', path: '/v1/calls?limit=50', gate: true },
      { name: 'GET /v1/calls?agent=', path: `/v1/calls?agent=${big.workflowId}&limit=50`, gate: true },
      { name: 'GET /v1/dashboard/savings', path: '/v1/dashboard/savings', gate: true },
      { name: 'GET /v1/workflows/:id/report', path: `/v1/workflows/${big.workflowId}/report`, gate: true },
      { name: 'GET /v1/activity', path: '/v1/activity?limit=50', gate: false },
      { name: 'GET /v1/dashboard/savings/series (30 days)', path: '/v1/dashboard/savings/series', gate: false },
    ];
    const timed: { read: string; p50_ms: number; p95_ms: number; max_ms: number; under_100ms_p95: boolean | null }[] = [];
    for (const r of reads) {
      const once = async () => {
        const t0 = performance.now();
        const res = await fetch(`${base}${r.path}`, { headers: { authorization: `Bearer ${big.key}` } });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${r.name}: ${res.status}`);
        return performance.now() - t0;
      };
      for (let i = 0; i < 30; i++) await once();
      const ms: number[] = [];
      for (let i = 0; i < requests; i++) ms.push(await once());
      const p95 = percentile(ms, 95);
      timed.push({ read: r.name, p50_ms: round(percentile(ms, 50)), p95_ms: round(p95), max_ms: round(Math.max(...ms)), under_100ms_p95: r.gate ? p95 < 100 : null });
    }

    // the plans of the main statements, read for real
    const plans: { read: string; seq_scans: string[]; ms: number }[] = [];
    for (const q of readQueries(big.accountId, big.workflowId, { totals: SAVINGS_TOTALS, bySource: SAVINGS_BY_SOURCE })) {
      const plan = ((await exec(`explain (analyze, buffers) ${q.sql}`)) as { 'QUERY PLAN': string }[]).map((x) => x['QUERY PLAN']).join('\n');
      console.log(`\n### ${q.name}\n${q.sql}\n\n${plan}`);
      const ms = Number(/Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? 'NaN');
      plans.push({ read: q.name, seq_scans: [...seqScans(plan, 'call_records'), ...seqScans(plan, 'activity')], ms });
    }
    const result = {
      calls: Number(sizes!.calls),
      activity: Number(sizes!.activity),
      call_records_size: sizes!.call_bytes,
      activity_size: sizes!.activity_bytes,
      timed_tenant_calls: big.calls,
      generate_s: Math.round(generateS),
      vacuum_analyze_s: Math.round(analyzeS),
      reads: timed,
      plans,
    };
    console.log(`\n${JSON.stringify(result, null, 2)}`);
    const failed = timed.filter((t) => t.under_100ms_p95 === false).map((t) => t.read);
    const scans = plans.filter((p) => p.seq_scans.length > 0).map((p) => p.read);
    if (failed.length || scans.length) {
      console.error(`[bench:storage] FAILED: over 100 ms p95: ${failed.join(', ') || 'none'}; reading a whole partition: ${scans.join(', ') || 'none'}`);
      process.exitCode = 1;
    }
  } finally {
    await app.close();
    await services.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (switches.has('keep')) log(`kept database ${name}`);
    else psql(`drop database if exists ${name} with (force)`);
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof UsageError ? err.message : err);
  process.exitCode = 1;
});
