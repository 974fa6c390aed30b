// One measured step of the scale run: N replicas behind the balancer, a fresh tenant, an open-loop
// load at a fixed rate (CPU and round trips per call, added latency), a closed loop (throughput),
// and the ledger check.
import { closedLoop, makePool, openLoop, type Endpoint, type RunSamples } from '../overhead/load.ts';
import { CLOCK_TICKS, cpuTicks, settleProcesses, sleep } from '../overhead/procs.ts';
import { summarize, type LatencySummary } from '../overhead/stats.ts';
import { startBalancer } from './haproxy.ts';
import { monitorRedis } from './monitor.ts';
import { checkLedger, type LedgerReport } from './ledger.ts';
import { getStatus, type Replica } from './replicas.ts';
import { postgresTicks, type SharedState } from './shared.ts';
import { api, makeAgents, signup } from './tenant.ts';
import { plainTraffic, type Traffic } from './traffic.ts';

export interface StepOptions {
  ratePerSec: number;
  durationMs: number;
  warmupMs: number;
  throughputMs: number;
  concurrency: number;
  /** Wait before reading PostgreSQL's counters: an idle backend reports its statistics up to 10 s late. */
  statsWaitMs: number;
  /** The window in which MONITOR counts Redis round trips (after the CPU window, same rate). */
  sampleMs: number;
  firstId: number;
}

export interface StepResult {
  replicas: number;
  sent: number;
  ok: number;
  errors: Record<string, number>;
  latency: LatencySummary;
  throughput: number;
  cpuUsPerCall: { total: number; replicas: number; haproxy: number; postgres: number; redis: number };
  /** cpuUsPerCall.total less the idle burn (idleCpuMsPerSec) over the measured window's wall time. */
  marginalUsPerCall: number;
  /** CPU ms per second with no load (timers, polls, health checks), measured before the load: the fixed cost each replica adds. */
  idleCpuMsPerSec: { replicas: number; haproxy: number; postgres: number; redis: number };
  /** PostgreSQL transactions per call (measured and sample windows); Redis commands clients sent, and those scripts ran, per call (sample window, MONITOR). */
  roundTripsPerCall: { postgres: number; redis: number; redisInScripts: number; redisByCommand: Record<string, number> };
  ledger: LedgerReport;
}

export const COMPLETIONS = '/v1/chat/completions';

export function readyProbe(origin: string): Promise<boolean> {
  return getStatus(`${origin}/readyz`).then((s) => s === 200);
}

/** Every replica flushes its metering batch (GET on the dashboard flushes the answering replica's meter). */
export async function flushAll(replicas: Replica[], key: string): Promise<void> {
  await sleep(500);
  for (const r of replicas) await api(r.origin, key, 'GET', '/v1/dashboard/savings');
}

/**
 * The scale bench's load through the balancer: an open loop of plain calls at `ratePerSec` on
 * one pool; `open(ms, offset)` sends for `ms`, numbering its calls from the traffic's `offset`.
 */
export function scaleLoad(origin: string, traffic: Traffic, ratePerSec: number) {
  const endpoint: Endpoint = { origin, path: COMPLETIONS, headers: {} };
  const pool = makePool(endpoint, { connections: 256, timeoutMs: 30_000 });
  const open = (durationMs: number, offset: number) =>
    openLoop(pool, endpoint, {
      ratePerSec,
      durationMs,
      stream: false,
      model: 'gpt-4o-mini',
      maxInFlight: 2000,
      drainMs: 10_000,
      firstId: 0,
      request: (i) => traffic.request(i + offset),
      onExchange: (i, st, r) => traffic.onExchange(i + offset, st, r),
    });
  return { pool, open };
}

export async function runStep(replicas: Replica[], shared: SharedState, o: StepOptions, log: (l: string) => void): Promise<StepResult> {
  const balancer = await startBalancer(replicas.map((r) => r.hostPort), readyProbe);
  try {
    const owner = await signup(balancer.origin);
    const calls = Math.ceil((o.ratePerSec * (o.durationMs + o.warmupMs + o.sampleMs)) / 1000);
    const agents = await makeAgents(balancer.origin, owner, calls, `scale-${replicas.length}`);
    const traffic = plainTraffic(agents, o.firstId);
    const { pool, open } = scaleLoad(balancer.origin, traffic, o.ratePerSec);
    const warmCalls = Math.ceil((o.ratePerSec * o.warmupMs) / 1000);
    if (o.warmupMs > 0) await open(o.warmupMs, 0);
    const pids = [...replicas.map((r) => r.child.pid), balancer.pid];
    await settleProcesses(pids);
    const idle0 = { procs: pids.map(cpuTicks), shared: await shared.cpu(), at: Date.now() };
    await sleep(o.statsWaitMs);
    const cpu0 = { procs: pids.map(cpuTicks), shared: await shared.cpu(), at: Date.now() };
    const idleSec = (Date.now() - idle0.at) / 1000;
    const msPerSec = (ticks: number) => (ticks * 1000) / CLOCK_TICKS / idleSec;
    const idleCpuMsPerSec = {
      replicas: msPerSec(cpu0.procs.slice(0, -1).reduce((s, v, i) => s + v - idle0.procs[i]!, 0)),
      haproxy: msPerSec(cpu0.procs.at(-1)! - idle0.procs.at(-1)!),
      postgres: msPerSec(postgresTicks(idle0.shared, cpu0.shared)),
      redis: msPerSec(cpu0.shared.redis - idle0.shared.redis),
    };
    const rt0 = await shared.roundTrips();
    let samples: RunSamples;
    try {
      samples = await open(o.durationMs, warmCalls);
    } catch (e) {
      await pool.destroy().catch(() => {});
      throw e;
    }
    await settleProcesses(pids);
    const cpu1 = { procs: pids.map(cpuTicks), shared: await shared.cpu(), at: Date.now() };
    const redisUrl = new URL(shared.redisUrl);
    const monitor = await monitorRedis(redisUrl.hostname, Number(redisUrl.port || 6379), shared.redisDb);
    const sampled = await open(o.sampleMs, warmCalls + samples.sent);
    const redis = await monitor.stop();
    await pool.destroy().catch(() => {});
    await sleep(o.statsWaitMs);
    const rt1 = await shared.roundTrips();
    const handled = samples.sent - (samples.errors.dropped_overload ?? 0);
    const sampleCalls = Math.max(1, sampled.sent - (sampled.errors.dropped_overload ?? 0));
    const us = (ticks: number) => (ticks * 1e6) / CLOCK_TICKS / Math.max(1, handled);
    const d = cpu1.procs.map((t, i) => t - cpu0.procs[i]!);
    const cpuUsPerCall = {
      replicas: us(d.slice(0, -1).reduce((s, v) => s + v, 0)),
      haproxy: us(d.at(-1)!),
      postgres: us(postgresTicks(cpu0.shared, cpu1.shared)),
      redis: us(cpu1.shared.redis - cpu0.shared.redis),
      total: 0,
    };
    cpuUsPerCall.total = cpuUsPerCall.replicas + cpuUsPerCall.haproxy + cpuUsPerCall.postgres + cpuUsPerCall.redis;
    const idleTotal = idleCpuMsPerSec.replicas + idleCpuMsPerSec.haproxy + idleCpuMsPerSec.postgres + idleCpuMsPerSec.redis;
    // what the calls cost beyond what the same processes burn idle over the same wall time
    const marginalUsPerCall = cpuUsPerCall.total - (idleTotal * 1000 * ((cpu1.at - cpu0.at) / 1000)) / Math.max(1, handled);
    const redisByCommand = Object.fromEntries(Object.entries(redis.byCommand).map(([k, v]) => [k, v / sampleCalls]));
    const roundTripsPerCall = {
      postgres: (rt1.pgXacts - rt0.pgXacts) / Math.max(1, handled + sampleCalls),
      redis: redis.sent / sampleCalls,
      redisInScripts: redis.inScripts / sampleCalls,
      redisByCommand,
    };
    log(`  redis round trips per call: ${Object.entries(redisByCommand).map(([k, v]) => `${k} ${v.toFixed(3)}`).join(', ')}; ${roundTripsPerCall.redisInScripts.toFixed(2)} commands inside scripts`);
    await flushAll(replicas, owner);
    const ledger = await checkLedger(balancer.origin, owner, agents, traffic.acked);
    log(`  ledger: ${ledger.acknowledged} acknowledged, ${ledger.listed} listed, ${ledger.lost} lost, ${ledger.doubleCounted} double-counted${ledger.problems.length ? `; ${ledger.problems.join('; ')}` : ''}`);
    const throughput = o.throughputMs > 0 ? await maxThroughput(balancer.origin, owner, o) : Number.NaN;
    return {
      replicas: replicas.length,
      sent: samples.sent,
      ok: samples.ok,
      errors: samples.errors,
      latency: summarize(samples.latency),
      throughput,
      cpuUsPerCall,
      marginalUsPerCall,
      idleCpuMsPerSec,
      roundTripsPerCall,
      ledger,
    };
  } finally {
    await balancer.stop();
  }
}

/** Closed loop through the balancer on the owner's key: the most calls per second it answers. */
export async function maxThroughput(origin: string, key: string, o: Pick<StepOptions, 'concurrency' | 'throughputMs' | 'firstId'>): Promise<number> {
  const endpoint: Endpoint = { origin, path: COMPLETIONS, headers: { authorization: `Bearer ${key}` } };
  const pool = makePool(endpoint, { connections: o.concurrency, timeoutMs: 30_000 });
  try {
    const s = await closedLoop(pool, endpoint, {
      concurrency: o.concurrency,
      durationMs: o.throughputMs,
      stream: false,
      model: 'gpt-4o-mini',
      maxRequests: 5_000_000,
      drainMs: 10_000,
      firstId: o.firstId + 50_000_000,
    });
    return s.elapsedMs > 0 ? (s.ok * 1000) / s.elapsedMs : 0;
  } finally {
    await pool.destroy().catch(() => {});
  }
}

/** The mock alone at the same rate: the latency every added figure is measured against. */
export async function directLatency(vendorUrl: string, o: StepOptions): Promise<LatencySummary> {
  const u = new URL(vendorUrl);
  const endpoint: Endpoint = { origin: u.origin, path: `${u.pathname}/chat/completions`, headers: { authorization: 'Bearer sk-bench' } };
  const pool = makePool(endpoint, { connections: 256, timeoutMs: 30_000 });
  try {
    const s = await openLoop(pool, endpoint, { ratePerSec: o.ratePerSec, durationMs: o.durationMs, stream: false, model: 'gpt-4o-mini', maxInFlight: 2000, drainMs: 5000, firstId: o.firstId + 90_000_000 });
    return summarize(s.latency);
  } finally {
    await pool.destroy().catch(() => {});
  }
}
