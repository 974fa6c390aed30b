// Gateway overhead benchmark: the same load against the mock vendor directly, through our gateway
// and through Portkey's gateway, in one run. See bench/README.md for how to read the output.
//
//   node bench/overhead/run.ts [--quick] [--rate 300] [--duration 20] [--concurrency 32] …
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { parseArgs, UsageError, type Options } from './args.ts';
import { runPhase, warmUp, type LoadSpec, type PhaseResult, type PhaseSettings } from './phases.ts';
import { CLOCK_TICKS, hasTaskset, killAll, killAllNow, pinSelf } from './procs.ts';
import { compare, renderHeadline, renderLoad, type Comparison } from './report.ts';
import { directTarget, repoRoot, startBare, startGateway, startMock, startPortkey, type Target, type TargetName } from './targets.ts';

const CLIENT_CORE = 0;
const SERVER_CORE = 1;

function loadsFor(o: Options): LoadSpec[] {
  const durationMs = o.durationSec * 1000;
  const base = { concurrency: o.concurrency, ratePerSec: o.ratePerSec, durationMs };
  const all: LoadSpec[] = [
    { ...base, name: 'closed', title: 'Max throughput, non-stream', kind: 'closed', stream: false },
    { ...base, name: 'closed-stream', title: 'Max throughput, stream', kind: 'closed', stream: true },
    { ...base, name: 'open', title: 'Fixed arrival rate, non-stream (latency from scheduled send)', kind: 'open', stream: false },
    { ...base, ratePerSec: o.streamRatePerSec, name: 'stream', title: 'Streams: time to first SSE data chunk', kind: 'open', stream: true },
  ];
  return all.filter((l) => o.loads.includes(l.name));
}

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

function gitCommit(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

let cleanups: (() => void)[] = [];
let shuttingDown = false;

async function shutdown(): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  await killAll();
  for (const c of cleanups) {
    try {
      c();
    } catch {
      // best effort
    }
  }
  cleanups = [];
}

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    log(`\n${sig}: stopping the servers`);
    void shutdown().finally(() => process.exit(130));
  });
}
process.on('exit', killAllNow);

async function main(): Promise<number> {
  const o = parseArgs(process.argv.slice(2));
  const startedAt = new Date();
  const canPin = o.pin && hasTaskset() && availableParallelism() >= 2;
  if (canPin) pinSelf(CLIENT_CORE);
  else if (o.pin) log('note: not pinning (taskset missing or fewer than 2 cores); numbers will be noisier');
  const serverCore = canPin ? SERVER_CORE : undefined;
  const loads = loadsFor(o);
  const settings: PhaseSettings = {
    model: o.model,
    timeoutMs: o.quick ? 10_000 : 30_000,
    drainMs: o.quick ? 5_000 : 10_000,
    maxInFlight: 2_000,
    serverCore,
    quietWaitMs: o.quick ? 1_000 : 5_000,
  };

  log(`# Gateway overhead benchmark${o.quick ? ' (quick)' : ''}`);
  log(
    `load generator on core ${canPin ? CLIENT_CORE : '-'}, servers on core ${serverCore ?? '-'}; ` +
      `vendor latency ${o.vendorLatencyMs} ms, chunk delay ${o.chunkDelayMs} ms; targets: ${o.targets.join(', ')}`,
  );

  const serverOpts = { core: serverCore, vendorLatencyMs: o.vendorLatencyMs, chunkDelayMs: o.chunkDelayMs, model: o.model, databaseUrl: o.databaseUrl, gatewayProfileDir: o.gatewayProfileDir, gatewayPerfMap: o.gatewayPerfMap };
  const mock = await startMock(serverOpts);
  log(`mock vendor ${mock.url} (pid ${mock.child.pid})`);
  const targets: Target[] = [directTarget(mock)];
  const skipped: Partial<Record<TargetName, string>> = {};

  if (o.targets.includes('gateway')) {
    const gw = await startGateway(mock, serverOpts, (fn) => cleanups.push(fn)).catch((e: Error) => {
      // A gateway that does not start (e.g. mid-edit) should not cost the direct and Portkey numbers.
      skipped.gateway = `did not start: ${e.message.split('\n').slice(0, 8).join('\n')}`;
      log(`gateway: SKIPPED — ${skipped.gateway}`);
      return undefined;
    });
    if (!gw) {
      // already reported
    } else if (gw.unavailable) {
      skipped.gateway = gw.unavailable;
      log(`gateway ${gw.target.origin} (pid ${gw.target.proxy?.pid}): SKIPPED — ${gw.unavailable}`);
    } else {
      targets.push(gw.target);
      log(`gateway ${gw.target.origin} (pid ${gw.target.proxy?.pid})`);
    }
  }
  if (o.targets.includes('portkey')) {
    const pk = await startPortkey(mock, serverOpts);
    targets.push(pk);
    log(`portkey ${pk.origin} (pid ${pk.proxy?.pid})`);
  }

  if (o.targets.includes('bare')) {
    const bare = await startBare(mock, serverOpts);
    targets.push(bare);
    log(`bare proxy ${bare.origin} (pid ${bare.proxy?.pid})`);
  }

  for (const t of targets) {
    const secs = o.warmupSec[t.name];
    if (secs <= 0) continue;
    log(`warming up ${t.name} for ${secs} s…`);
    await warmUp(t, secs * 1000, o.concurrency, settings);
  }

  const results: PhaseResult[] = [];
  const comparisons: Comparison[] = [];
  for (const load of loads) {
    const rows: PhaseResult[] = [];
    for (const t of targets) {
      process.stdout.write(`… ${load.name} → ${t.name} `);
      const r = await runPhase(load, t, mock.child, settings);
      process.stdout.write(`${r.ok} ok, ${Math.round(r.throughput)} req/s\n`);
      rows.push(r);
      results.push(r);
    }
    const cmp = compare(load, rows);
    comparisons.push(cmp);
    log(renderLoad(load, rows, cmp));
  }
  log(renderHeadline(loads, comparisons));
  for (const [t, why] of Object.entries(skipped)) log(`\n${t} was not measured: ${why}`);

  const out = o.out ?? join(repoRoot, 'bench', 'results', `overhead-${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  mkdirSync(dirname(out), { recursive: true });
  const doc = {
    benchmark: 'overhead',
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    commit: gitCommit(),
    machine: { cpu: cpus()[0]?.model, cores: cpus().length, node: process.version, clockTicks: CLOCK_TICKS },
    pinning: canPin ? { loadGenerator: CLIENT_CORE, servers: SERVER_CORE } : null,
    options: o,
    loads,
    skipped,
    results,
    comparisons,
  };
  // NaN is not JSON: missing numbers become null.
  writeFileSync(out, `${JSON.stringify(doc, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2)}\n`);
  log(`\nresults: ${relative(process.cwd(), out) || out}`);
  // A requested target that could not be measured is a failure for scripts, even with results written.
  return Object.keys(skipped).length > 0 ? 2 : 0;
}

let status = 0;
try {
  status = await main();
} catch (e) {
  status = 1;
  if (e instanceof UsageError) console.error(e.message);
  else console.error(`\nbenchmark failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
} finally {
  await shutdown();
}
process.exit(status);
