// Scale-out benchmark: 1, 2 and 4 gateway replicas on one PostgreSQL + Redis behind HAProxy, against
// the mock vendor, in one run; or (--soak) the soak through the balancer. See bench/README.md.
//
//   node bench/scale/run.ts [--quick] [--replicas 1,2,4] [--rate 200] [--duration 20]
//   node bench/scale/run.ts --soak [--rate 150] [--duration 60]
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { UsageError } from '../overhead/args.ts';
import { hasTaskset, killAll, killAllNow, pinSelf } from '../overhead/procs.ts';
import { repoRoot, startMock } from '../overhead/targets.ts';
import { parseScaleArgs, type ScaleOptions } from './args.ts';
import { ensureHaproxy } from './haproxy.ts';
import { directLatency, maxThroughput, readyProbe, runStep, type StepResult } from './measure.ts';
import { clusterSecrets, growTo, type Replica } from './replicas.ts';
import { renderRounds, renderScale, renderSoak } from './report.ts';
import { roundPlan, runRounds } from './rounds.ts';
import { startBalancer } from './haproxy.ts';
import { signup } from './tenant.ts';
import { openShared, type SharedState } from './shared.ts';
import { runSoak } from './soak.ts';

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

const replicas: Replica[] = [];
let shared: SharedState | undefined;
let stopping: Promise<void> | undefined;

function shutdown(): Promise<void> {
  stopping ??= (async () => {
    await Promise.all(replicas.map((r) => r.stop().catch(() => {})));
    await killAll();
    await shared?.close();
  })();
  return stopping;
}

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    log(`\n${sig}: stopping`);
    void shutdown().finally(() => process.exit(130));
  });
}
process.on('exit', killAllNow);

async function main(o: ScaleOptions): Promise<number> {
  const pin = o.pin && hasTaskset() && availableParallelism() >= 2;
  if (pin) pinSelf(0);
  ensureHaproxy(log);
  const mock = await startMock({ core: pin ? 0 : undefined, vendorLatencyMs: 0, chunkDelayMs: 0, model: 'gpt-4o-mini' });
  shared = await openShared({ pgAdminUrl: o.pgAdminUrl, redisBase: o.redisUrl, redisDb: o.redisDb });
  const cluster = { databaseUrl: shared.databaseUrl, redisUrl: shared.redisUrl, vendorUrl: mock.url, core: pin ? 1 : undefined };
  const secrets = clusterSecrets();
  log(`# ${o.soak ? 'Soak' : 'Scale-out'}: load generator and mock on core ${pin ? 0 : '-'}, replicas and haproxy on core ${pin ? 1 : '-'}; PostgreSQL and Redis unpinned`);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  let failed: string[];
  let doc: unknown;
  if (o.soak) {
    await growTo(replicas, o.replicas[0]!, cluster, secrets);
    const r = await runSoak(replicas, { ratePerSec: o.ratePerSec, durationMs: o.durationSec * 1000, warmupMs: o.warmupSec * 1000, firstId: 1_000_000 }, log);
    const out = renderSoak(r);
    log(out.text);
    failed = out.failed;
    doc = { benchmark: 'soak', options: o, result: r };
  } else if (o.cycles > 0) {
    const order = roundPlan(o.replicas, o.cycles, o.ratePerSec, o.solo, o.load);
    const most = Math.max(...o.replicas);
    log(`starting ${most} replicas (the first alone: it migrates the database)…`);
    await growTo(replicas, most, cluster, secrets);
    log(`direct to the mock at ${o.ratePerSec} req/s…`);
    const direct = await directLatency(mock.url, { ratePerSec: o.ratePerSec, durationMs: o.durationSec * 1000, warmupMs: 0, throughputMs: 0, concurrency: 1, statsWaitMs: 0, sampleMs: 0, firstId: 0 });
    const roundOpts = { ratePerSec: o.ratePerSec, warmupMs: o.warmupSec * 1000, durationMs: o.durationSec * 1000, idleMs: o.idleSec * 1000, monitorMs: o.quick ? 2000 : 3000, firstId: 0 };
    const rounds = await runRounds(replicas, order, shared, roundOpts, log);
    const throughput: Record<number, number> = {};
    if (o.throughputSec > 0) {
      for (const n of o.replicas) {
        for (const [i, r] of replicas.entries()) process.kill(r.child.pid, i < n ? 'SIGCONT' : 'SIGSTOP');
        const b = await startBalancer(replicas.slice(0, n).map((r) => r.hostPort), readyProbe);
        try {
          throughput[n] = await maxThroughput(b.origin, await signup(b.origin), { concurrency: o.concurrency, throughputMs: o.throughputSec * 1000, firstId: 900_000_000 + n * 1_000_000 });
        } finally {
          await b.stop();
        }
      }
      for (const r of replicas) process.kill(r.child.pid, 'SIGCONT');
    }
    const out = renderRounds(rounds, order.length / o.cycles, direct, o, throughput);
    log(out.text);
    failed = out.failed;
    doc = { benchmark: 'scale-rounds', options: o, order, direct, rounds, throughput };
  } else {
    const step = { ratePerSec: o.ratePerSec, durationMs: o.durationSec * 1000, warmupMs: o.warmupSec * 1000, throughputMs: o.throughputSec * 1000, concurrency: o.concurrency, statsWaitMs: 11_000, sampleMs: o.quick ? 2000 : 5000, firstId: 0 };
    log(`direct to the mock at ${o.ratePerSec} req/s…`);
    const direct = await directLatency(mock.url, { ...step, firstId: 0 });
    const steps: StepResult[] = [];
    for (const [i, n] of o.replicas.entries()) {
      await growTo(replicas, n, cluster, secrets);
      const ratePerSec = o.load === 'scaled' ? o.ratePerSec * n : o.ratePerSec;
      log(`${n} replica(s): warm-up ${o.warmupSec} s, ${o.durationSec} s at ${ratePerSec} req/s, ${o.throughputSec} s closed loop…`);
      steps.push(await runStep(replicas.slice(0, n), shared, { ...step, ratePerSec, firstId: (i + 1) * 100_000_000 }, log));
    }
    const out = renderScale(steps, direct, o);
    log(out.text);
    failed = out.failed;
    doc = { benchmark: 'scale', options: o, direct, steps };
  }
  const file = join(repoRoot, 'bench', 'results', `${o.soak ? 'soak' : 'scale'}-${stamp}.json`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(doc, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2)}\n`);
  log(`results: ${file}`);
  for (const f of failed) log(`FAIL: ${f}`);
  if (!failed.length) log('PASS');
  return failed.length ? 1 : 0;
}

let status = 0;
try {
  status = await main(parseScaleArgs(process.argv.slice(2)));
} catch (e) {
  status = e instanceof UsageError ? 2 : 1;
  console.error(e instanceof UsageError ? e.message : `\nbenchmark failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
} finally {
  await shutdown();
}
process.exit(status);
