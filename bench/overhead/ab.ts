// Interleaved A/B of gateway versions: every tree's gateway runs at once behind one mock,
// all on the server core, loaded at the same time from the generator core, and each
// round compares their CPU per call. Machine drift (which moves sequential phases by
// tens of percent here) hits every version alike, so the ratios hold to a few percent.
//
//   node bench/overhead/ab.ts <tree> <tree> [...] [--secs 10] [--rounds 4] [--concurrency 16] [--stream]
//                             [--database-url URL] [--rate N]
//
// A tree is a checkout of this repository with its dependencies (e.g. a `git worktree`
// whose node_modules link to this one's); the first is the reference. A tree may carry
// options after `@`: `tree@pg` runs its gateway on --database-url (without it, on the
// embedded default, unless --database-url is given, which then applies to every tree);
// `tree@node-http` starts it with FAST_PATH=off (a tree whose bench/overhead/targets.ts
// passes `env` on, as this one's does). `--rate N` adds, each round, an open-loop phase at
// N req/s to every gateway and to the mock directly, one after another (in a rotating
// order), for the latency each adds (p50, p99 against `direct`) and its CPU per call.
// Every CPU figure comes twice: the whole process, and its main thread (the one serving
// calls), so work moved to another thread of the process shows.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { makePool, closedLoop } from './load.ts';
import { runPhase, type LoadSpec, type PhaseResult } from './phases.ts';
import { CLOCK_TICKS, cpuTicks, killAll, pinSelf, servingThreadTicks } from './procs.ts';
import { table } from './report.ts';
import { added } from './stats.ts';
import { directTarget, startMock, type ServerOptions, type Target } from './targets.ts';
import pg from 'pg';

/** Creates the database --database-url names when the server has none of that name (the server's `postgres` database is asked). */
async function ensureDatabase(url: string): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`--database-url: database name ${JSON.stringify(name)} is not a plain identifier`);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) {
      await client.query(`create database ${name}`);
      console.log(`created database ${name}`);
    }
  } finally {
    await client.end();
  }
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    secs: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '4' },
    concurrency: { type: 'string', default: '16' },
    stream: { type: 'boolean', default: false },
    'database-url': { type: 'string' },
    rate: { type: 'string' },
  },
});
if (positionals.length < 2) {
  console.error('usage: node bench/overhead/ab.ts <tree>[@pg][@node-http] <tree> [...] [--secs S] [--rounds N] [--concurrency N] [--stream] [--database-url URL] [--rate N]');
  process.exit(2);
}
const databaseUrl = values['database-url'];
const trees = positionals.map((spec) => {
  const [path, ...flags] = spec.split('@');
  const unknown = flags.filter((f) => f !== 'pg' && f !== 'node-http');
  if (unknown.length > 0) throw new Error(`${spec}: unknown option ${unknown.join(', ')} (pg, node-http)`);
  const pg = flags.includes('pg');
  if (pg && !databaseUrl) throw new Error(`${spec}: @pg needs --database-url`);
  const anyPg = positionals.some((p) => p.split('@').includes('pg'));
  return { spec, path: resolve(path!), url: pg || !anyPg ? databaseUrl : undefined, nodeHttp: flags.includes('node-http') };
});
const secs = Number(values.secs);
const rounds = Number(values.rounds);
const concurrency = Number(values.concurrency);
const rate = values.rate === undefined ? undefined : Number(values.rate);
const stream = values.stream;
const model = 'gpt-4o-mini';

pinSelf(0);
if (databaseUrl) await ensureDatabase(databaseUrl);
const base = { core: 1, vendorLatencyMs: 0, chunkDelayMs: 0, model };
const cleanups: (() => void)[] = [];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const fmt = (v: number, digits = 0) => (Number.isFinite(v) ? v.toFixed(digits) : '–');
const plus = (v: number, digits: number) => (Number.isFinite(v) && v >= 0 ? `+${fmt(v, digits)}` : fmt(v, digits));
try {
  const mock = await startMock(base);
  const gateways: { spec: string; target: Target }[] = [];
  for (const tree of trees) {
    // each tree starts its own gateway, with its own code (two replicas when they share a database)
    const { startGateway } = (await import(`${tree.path}/bench/overhead/targets.ts`)) as typeof import('./targets.ts');
    const opts: ServerOptions = { ...base, databaseUrl: tree.url, env: tree.nodeHttp ? { FAST_PATH: 'off' } : {} };
    const gw = await startGateway(mock, opts, (fn) => cleanups.push(fn));
    if (gw.unavailable) throw new Error(`${tree.spec}: ${gw.unavailable}`);
    gateways.push({ spec: tree.spec, target: gw.target });
    console.log(`${gateways.length - 1}: ${tree.spec} on ${tree.url ? 'PostgreSQL' : 'the embedded database'}${tree.nodeHttp ? ', FAST_PATH=off' : ''} (pid ${gw.target.proxy?.pid})`);
  }
  const pools = gateways.map((g) => makePool(g.target, { connections: concurrency, timeoutMs: 10_000 }));
  let firstId = 0;
  /** One closed-loop round, every gateway at once: CPU µs per call, the process's and its serving thread's. */
  const round = async (ms: number): Promise<{ us: number; serving: number }[]> => {
    const before = gateways.map((g) => ({ all: cpuTicks(g.target.proxy!.pid), main: servingThreadTicks(g.target.proxy!.pid) }));
    const runs = await Promise.all(
      gateways.map((g, i) => closedLoop(pools[i]!, g.target, { concurrency, durationMs: ms, maxRequests: 1e9, drainMs: 5_000, stream, model, firstId: (firstId += 1e8) })),
    );
    const per = (ticks: number, ok: number) => ((ticks / CLOCK_TICKS) * 1e6) / Math.max(1, ok);
    return gateways.map((g, i) => ({
      us: per(cpuTicks(g.target.proxy!.pid) - before[i]!.all, runs[i]!.ok),
      serving: per(servingThreadTicks(g.target.proxy!.pid) - before[i]!.main, runs[i]!.ok),
    }));
  };
  const direct = directTarget(mock);
  const openSpec: LoadSpec = { name: 'open', title: 'open', kind: 'open', stream: false, concurrency, ratePerSec: rate ?? 0, durationMs: secs * 1000 };
  const settings = { model, timeoutMs: 10_000, drainMs: 5_000, maxInFlight: 2_000, serverCore: 1, quietWaitMs: 2_000 };
  await round(10_000); // warm-up, unmeasured
  const closed = gateways.map(() => ({ us: [] as number[], serving: [] as number[], ratio: [] as number[] }));
  const open = gateways.map(() => ({ p50: [] as number[], p99: [] as number[], us: [] as number[], serving: [] as number[] }));
  for (let r = 1; r <= rounds; r++) {
    const res = await round(secs * 1000);
    res.forEach((x, i) => (closed[i]!.us.push(x.us), closed[i]!.serving.push(x.serving), closed[i]!.ratio.push(x.us / res[0]!.us)));
    console.log(`round ${r}, closed loop: ${res.map((x, i) => `${i}: ${fmt(x.us)} µs/call (serving ${fmt(x.serving)})`).join('   ')}   ratio to 0: ${res.map((x) => (x.us / res[0]!.us).toFixed(3)).join(' / ')}`);
    if (rate === undefined) continue;
    // open loop, one target at a time (all at once would saturate the core): direct first, then the gateways from a rotating start
    const base = await runPhase(openSpec, direct, mock.child, settings);
    const order = gateways.map((_, i) => (i + r - 1) % gateways.length);
    const rows: (PhaseResult | undefined)[] = [];
    for (const i of order) rows[i] = await runPhase(openSpec, gateways[i]!.target, mock.child, settings);
    rows.forEach((p, i) => {
      open[i]!.p50.push(added(p!.latency.p50, base.latency.p50));
      open[i]!.p99.push(added(p!.latency.p99, base.latency.p99));
      open[i]!.us.push(p!.cpu.proxyUsPerReq ?? NaN);
      open[i]!.serving.push(p!.cpu.servingUsPerReq ?? NaN);
    });
    const others = rows.map((p) => p!.cpu.otherCores ?? 0);
    console.log(
      `round ${r}, open loop ${rate}/s (direct p50 ${fmt(base.latency.p50, 2)} / p99 ${fmt(base.latency.p99, 2)} ms): ` +
        rows.map((p, i) => `${i}: ${plus(open[i]!.p50.at(-1)!, 2)} / ${plus(open[i]!.p99.at(-1)!, 1)} ms, ${fmt(p!.cpu.proxyUsPerReq ?? NaN)} µs (serving ${fmt(p!.cpu.servingUsPerReq ?? NaN)})`).join('   ') +
        (others.some((o) => o > 0.1) ? `   (other programs on the core: ${others.map((o) => o.toFixed(2)).join(' / ')} cores)` : ''),
    );
  }
  console.log(`median ratio to 0: ${closed.map((c) => median(c.ratio).toFixed(3)).join(' / ')}`);
  const head = ['tree', 'closed µs/call', 'serving µs/call', 'ratio to 0'];
  if (rate !== undefined) head.push(`+p50 @${rate}/s ms`, `+p99 @${rate}/s ms`, 'open µs/call', 'open serving µs/call');
  const rows = gateways.map((g, i) => {
    const cells = [`${i}: ${g.spec}`, fmt(median(closed[i]!.us)), fmt(median(closed[i]!.serving)), median(closed[i]!.ratio).toFixed(3)];
    if (rate !== undefined) cells.push(plus(median(open[i]!.p50), 2), plus(median(open[i]!.p99), 1), fmt(median(open[i]!.us)), fmt(median(open[i]!.serving)));
    return cells;
  });
  console.log(`\nmedians over ${rounds} rounds\n${table(head, rows)}`);
  for (const p of pools) await p.close();
} finally {
  await killAll();
  for (const fn of cleanups) fn();
}
