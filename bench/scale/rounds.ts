// What scale-out costs, measured in rounds: every replica is started (and warmed) once, and each
// round runs N of them behind a fresh balancer while the others are stopped (SIGSTOP: no timers,
// no polls, no CPU), open loop at N times one replica's rate (scale-out: each replica sees the same
// load) or at one total rate for every N (`fixed`). The replica counts alternate (1,2,4,4,2,1,…) so
// that the machine's drift cancels within each cycle; the ratio of each count's CPU per call to one
// replica's is taken per cycle, and the report gives the median and the spread over the cycles.
//
// CPU per call is utime+stime from /proc of every process of the system under test — the round's
// replicas, haproxy, the PostgreSQL backends of the run's database, Redis — over the measured
// window only (the load and the settling of what it deferred), divided by the calls answered in it.
import { readFileSync } from 'node:fs';
import { CLOCK_TICKS, cpuTicks, settleProcesses, sleep } from '../overhead/procs.ts';
import { coreBusyShare, summarize, type LatencySummary } from '../overhead/stats.ts';
import { startBalancer } from './haproxy.ts';
import { checkLedger, type LedgerReport } from './ledger.ts';
import { flushAll, readyProbe, scaleLoad } from './measure.ts';
import { monitorRedis } from './monitor.ts';
import type { Replica } from './replicas.ts';
import { postgresTicks, type SharedState } from './shared.ts';
import { makeAgents, signup } from './tenant.ts';
import { plainTraffic } from './traffic.ts';

/**
 * How the load follows the replica count. `scaled` (scale-out): N replicas take N times one
 * replica's rate, so each sees the same load and what remains is what running N of them costs.
 * `fixed`: every count shares one total rate, so each of N replicas sees 1/N of it.
 */
export type LoadMode = 'scaled' | 'fixed';

/** One round: how many replicas, at what total rate, under what label in the report. */
export interface RoundSpec {
  replicas: number;
  ratePerSec: number;
  /** The replica count for the plan's main series ("1", "2", "4"); `1 @ R/s` for a lone replica at another rate. */
  label: string;
}

/** The label of a lone replica at `ratePerSec`, beside the main series. */
export function loneLabel(ratePerSec: number): string {
  return `1 @ ${ratePerSec}/s`;
}

/**
 * The rounds of `cycles` cycles: the counts up then down, N replicas at `rate` (fixed) or N × `rate`
 * (scaled). With `solo`, each cycle also runs, in its middle, one replica at the rate each of N
 * replicas sees (fixed: rate/N) or at the total N replicas take (scaled: N × rate): fixed, it tells
 * per-replica-rate effects from scale-out's; scaled, it shows what one replica does at that load.
 */
export function roundPlan(counts: number[], cycles: number, rate: number, solo: boolean, load: LoadMode = 'fixed'): RoundSpec[] {
  const totalFor = (n: number) => (load === 'scaled' ? rate * n : rate);
  const up = [...counts].sort((a, b) => a - b).map((n) => ({ replicas: n, ratePerSec: totalFor(n), label: String(n) }));
  const loneRate = (n: number) => (load === 'scaled' ? rate * n : rate / n);
  const lone = solo ? up.filter((r) => r.replicas > 1).reverse().map((r) => ({ replicas: 1, ratePerSec: loneRate(r.replicas), label: loneLabel(loneRate(r.replicas)) })) : [];
  const half = [...up, ...lone];
  const one = [...half, ...[...half].reverse()];
  return Array.from({ length: cycles }, () => one).flat();
}

export interface RoundOptions {
  ratePerSec: number;
  warmupMs: number;
  durationMs: number;
  /** Unloaded wait before and after the load: PostgreSQL's counters of an idle backend arrive up to 10 s late; the idle CPU is measured in the first. */
  idleMs: number;
  /** Redis MONITOR window at the end of the warm-up (round trips), never while CPU is measured; 0 skips. */
  monitorMs: number;
  firstId: number;
  /** The round's label in the report (roundPlan); the replica count when absent. */
  label?: string;
}

export interface CpuSplit {
  total: number;
  replicas: number;
  haproxy: number;
  postgres: number;
  redis: number;
}

export interface RoundResult {
  index: number;
  replicas: number;
  ratePerSec: number;
  /** RoundSpec's label: the replica count, or `1 @ rate/s`. */
  label: string;
  sent: number;
  ok: number;
  errors: Record<string, number>;
  latency: LatencySummary;
  /** Wall time CPU was counted over (the load and its settling). */
  windowMs: number;
  /** CPU µs per call answered in the window. */
  cpuUsPerCall: CpuSplit;
  /** The same split per replica (µs per call of the whole load). */
  perReplicaUs: number[];
  /** Context switches of the replicas per call (voluntary + involuntary): wake-ups, i.e. how little a wake-up batches. */
  switchesPerCall: number;
  /** CPU ms per second of the same processes unloaded (timers, polls, health checks), just before the load. */
  idleMsPerSec: CpuSplit;
  /** Share of the machine's CPUs busy in the window (everything on it), and the system under test's CPU in cores. */
  machineBusy: number;
  sutCores: number;
  /** PostgreSQL transactions of the run's database per call (the window and one idle wait after it). */
  pgXactsPerCall: number;
  /** Redis commands clients sent per call, and those their scripts ran (the MONITOR window); NaN when not sampled. */
  redisPerCall: number;
  redisInScriptsPerCall: number;
  redisByCommand: Record<string, number>;
  ledger: LedgerReport;
}

function signalAll(replicas: Replica[], sig: 'SIGSTOP' | 'SIGCONT'): void {
  for (const r of replicas) process.kill(r.child.pid, sig);
}

function switches(pid: number): number {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(s)?.[1] ?? 0) + Number(/^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(s)?.[1] ?? 0);
}

function machineStat(): string {
  return readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
}

interface Snapshot {
  procs: number[];
  switches: number[];
  shared: Awaited<ReturnType<SharedState['cpu']>>;
  machine: string;
  at: number;
}

async function snapshot(pids: number[], replicaPids: number[], shared: SharedState): Promise<Snapshot> {
  return { procs: pids.map(cpuTicks), switches: replicaPids.map(switches), shared: await shared.cpu(), machine: machineStat(), at: Date.now() };
}

/** CPU between two snapshots, in ticks: the round's replicas each, haproxy (last pid), PostgreSQL, Redis. */
function split(a: Snapshot, b: Snapshot, nReplicas: number): { perReplica: number[]; replicas: number; haproxy: number; postgres: number; redis: number } {
  const d = b.procs.map((t, i) => t - a.procs[i]!);
  const perReplica = d.slice(0, nReplicas);
  return { perReplica, replicas: perReplica.reduce((s, v) => s + v, 0), haproxy: d[nReplicas]!, postgres: postgresTicks(a.shared, b.shared), redis: b.shared.redis - a.shared.redis };
}

/**
 * One round: `active` run behind a fresh balancer, `paused` are stopped for its length. A fresh
 * tenant, a warm-up (its end sampled with MONITOR), an idle wait, the measured load, an idle wait,
 * then the ledger check.
 */
export async function runRound(index: number, active: Replica[], paused: Replica[], shared: SharedState, o: RoundOptions, log: (l: string) => void): Promise<RoundResult> {
  signalAll(paused, 'SIGSTOP');
  signalAll(active, 'SIGCONT');
  const balancer = await startBalancer(active.map((r) => r.hostPort), readyProbe);
  try {
    const owner = await signup(balancer.origin);
    const calls = Math.ceil((o.ratePerSec * (o.warmupMs + o.monitorMs + o.durationMs)) / 1000);
    const agents = await makeAgents(balancer.origin, owner, calls, `round-${index}`);
    const traffic = plainTraffic(agents, o.firstId);
    const load = scaleLoad(balancer.origin, traffic, o.ratePerSec);
    const pool = load.pool;
    let offset = 0;
    // each phase's calls follow the last phase's
    const open = async (durationMs: number) => {
      const first = offset;
      offset += Math.max(1, Math.round((o.ratePerSec * durationMs) / 1000));
      return load.open(durationMs, first);
    };
    try {
      if (o.warmupMs > 0) await open(o.warmupMs);
      let redis = { sent: Number.NaN, inScripts: Number.NaN, byCommand: {} as Record<string, number> };
      let monitored = 1;
      if (o.monitorMs > 0) {
        const u = new URL(shared.redisUrl);
        const monitor = await monitorRedis(u.hostname, Number(u.port || 6379), shared.redisDb);
        const s = await open(o.monitorMs);
        redis = await monitor.stop();
        monitored = Math.max(1, s.ok);
      }
      const pids = [...active.map((r) => r.child.pid), balancer.pid];
      const replicaPids = active.map((r) => r.child.pid);
      await settleProcesses(pids);
      const idle0 = await snapshot(pids, replicaPids, shared);
      await sleep(o.idleMs);
      const cpu0 = await snapshot(pids, replicaPids, shared);
      const rt0 = await shared.roundTrips();
      const samples = await open(o.durationMs);
      await settleProcesses(pids);
      const cpu1 = await snapshot(pids, replicaPids, shared);
      await sleep(o.idleMs);
      const rt1 = await shared.roundTrips();

      const handled = Math.max(1, samples.ok);
      const load = split(cpu0, cpu1, active.length);
      const us = (ticks: number) => (ticks * 1e6) / CLOCK_TICKS / handled;
      const cpuUsPerCall: CpuSplit = { replicas: us(load.replicas), haproxy: us(load.haproxy), postgres: us(load.postgres), redis: us(load.redis), total: 0 };
      cpuUsPerCall.total = cpuUsPerCall.replicas + cpuUsPerCall.haproxy + cpuUsPerCall.postgres + cpuUsPerCall.redis;
      const idle = split(idle0, cpu0, active.length);
      const idleSec = (cpu0.at - idle0.at) / 1000;
      const ms = (ticks: number) => (ticks * 1000) / CLOCK_TICKS / idleSec;
      const idleMsPerSec: CpuSplit = { replicas: ms(idle.replicas), haproxy: ms(idle.haproxy), postgres: ms(idle.postgres), redis: ms(idle.redis), total: 0 };
      idleMsPerSec.total = idleMsPerSec.replicas + idleMsPerSec.haproxy + idleMsPerSec.postgres + idleMsPerSec.redis;
      const windowMs = cpu1.at - cpu0.at;
      const sw = cpu1.switches.reduce((s, v, i) => s + v - cpu0.switches[i]!, 0);

      await flushAll(active, owner);
      const ledger = await checkLedger(balancer.origin, owner, agents, traffic.acked);
      const result: RoundResult = {
        index,
        replicas: active.length,
        ratePerSec: o.ratePerSec,
        label: o.label ?? String(active.length),
        sent: samples.sent,
        ok: samples.ok,
        errors: samples.errors,
        latency: summarize(samples.latency),
        windowMs,
        cpuUsPerCall,
        perReplicaUs: load.perReplica.map(us),
        switchesPerCall: sw / handled,
        idleMsPerSec,
        machineBusy: coreBusyShare(cpu0.machine, cpu1.machine),
        sutCores: (cpuUsPerCall.total * handled) / 1e6 / (windowMs / 1000),
        pgXactsPerCall: (rt1.pgXacts - rt0.pgXacts) / handled,
        redisPerCall: redis.sent / monitored,
        redisInScriptsPerCall: redis.inScripts / monitored,
        redisByCommand: Object.fromEntries(Object.entries(redis.byCommand).map(([k, v]) => [k, v / monitored])),
        ledger,
      };
      const c = result.cpuUsPerCall;
      log(
        `  round ${index + 1}: ${result.label} ${samples.ok}/${samples.sent} ok; CPU ${c.total.toFixed(0)} µs/call (replicas ${c.replicas.toFixed(0)} [${result.perReplicaUs.map((v) => v.toFixed(0)).join(' ')}], haproxy ${c.haproxy.toFixed(0)}, pg ${c.postgres.toFixed(0)}, redis ${c.redis.toFixed(0)}); ` +
          `${result.switchesPerCall.toFixed(2)} switches/call; idle ${idleMsPerSec.total.toFixed(1)} ms/s; machine ${(result.machineBusy * 100).toFixed(0)} % busy, SUT ${result.sutCores.toFixed(2)} cores; ` +
          `pg ${result.pgXactsPerCall.toFixed(3)} xacts/call, redis ${result.redisPerCall.toFixed(2)} (+${result.redisInScriptsPerCall.toFixed(1)}); ledger lost ${ledger.lost} double ${ledger.doubleCounted}${ledger.problems.length ? ` PROBLEMS ${ledger.problems.join('; ')}` : ''}`,
      );
      return result;
    } finally {
      await pool.destroy().catch(() => {});
    }
  } finally {
    await balancer.stop();
  }
}

export interface RatioSummary {
  /** The round label (replica count, or `1 @ rate/s`). */
  label: string;
  replicas: number;
  /** This label's CPU per call over one replica's, per cycle (the mean of its rounds in the cycle over the mean of one replica's). */
  perCycle: number[];
  median: number;
  min: number;
  max: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Whether a label is of the main series (a replica count), not a lone replica's round. */
export const isCount = (label: string) => /^\d+$/.test(label);

/** Labels in report order: the main series by replica count, then the lone replica's rounds (highest rate first). */
export function labelsOf(rounds: RoundResult[]): string[] {
  const seen = [...new Map(rounds.map((r) => [r.label, r])).values()];
  const main = seen.filter((r) => isCount(r.label)).sort((a, b) => a.replicas - b.replicas);
  const lone = seen.filter((r) => !isCount(r.label)).sort((a, b) => b.ratePerSec - a.ratePerSec);
  return [...main, ...lone].map((r) => r.label);
}

/** Per cycle (each `perCycle` rounds), each label's mean `pick` over the one-replica rounds' mean; the median and spread over cycles. */
export function cycleRatios(rounds: RoundResult[], perCycle: number, pick: (r: RoundResult) => number): RatioSummary[] {
  const cycles: RoundResult[][] = [];
  for (let i = 0; i < rounds.length; i += perCycle) cycles.push(rounds.slice(i, i + perCycle));
  const labels = labelsOf(rounds);
  const base = labels[0]!;
  const mean = (rs: RoundResult[]) => rs.reduce((s, r) => s + pick(r), 0) / rs.length;
  return labels.map((label) => {
    const perCycle = cycles
      .filter((c) => c.some((r) => r.label === label) && c.some((r) => r.label === base))
      .map((c) => mean(c.filter((r) => r.label === label)) / mean(c.filter((r) => r.label === base)));
    return { label, replicas: rounds.find((r) => r.label === label)!.replicas, perCycle, median: median(perCycle), min: Math.min(...perCycle), max: Math.max(...perCycle) };
  });
}

export { median as medianOf };

/** Runs the rounds in `order` (replica counts at `o.ratePerSec`, or specs) over `replicas` (as many as the largest count, all started). */
export async function runRounds(replicas: Replica[], order: (number | RoundSpec)[], shared: SharedState, o: RoundOptions, log: (l: string) => void): Promise<RoundResult[]> {
  const results: RoundResult[] = [];
  try {
    for (const [i, item] of order.entries()) {
      const spec = typeof item === 'number' ? { replicas: item, ratePerSec: o.ratePerSec, label: String(item) } : item;
      const n = spec.replicas;
      log(`round ${i + 1}/${order.length}: ${n} replica(s), warm-up ${o.warmupMs / 1000} s, ${o.durationMs / 1000} s at ${spec.ratePerSec} req/s`);
      results.push(await runRound(i, replicas.slice(0, n), replicas.slice(n), shared, { ...o, ratePerSec: spec.ratePerSec, label: spec.label, firstId: o.firstId + (i + 1) * 10_000_000 }, log));
    }
  } finally {
    signalAll(replicas, 'SIGCONT');
  }
  return results;
}
