// One measured phase = one load shape against one target, with the CPU time each process spent on it.
import { performance } from 'node:perf_hooks';
import { closedLoop, makePool, openLoop, prime, type RunSamples } from './load.ts';
import { CLOCK_TICKS, coreBusyShare, coreStatLine, cpuTicks, servingThreadTicks, settleProcesses, waitForQuietCore, type Child } from './procs.ts';
import { cpuMicrosPerRequest, summarize, type LatencySummary } from './stats.ts';
import type { Target, TargetName } from './targets.ts';

export type LoadName = 'closed' | 'closed-stream' | 'open' | 'stream';

export interface LoadSpec {
  name: LoadName;
  title: string;
  kind: 'closed' | 'open';
  stream: boolean;
  /** Closed loop: requests in flight. */
  concurrency: number;
  /** Open loop: arrivals per second. */
  ratePerSec: number;
  durationMs: number;
}

export interface PhaseSettings {
  model: string;
  timeoutMs: number;
  drainMs: number;
  maxInFlight: number;
  /** Core the servers run on, for its busy share; undefined when unpinned. */
  serverCore: number | undefined;
  /** Longest wait, before each phase, for the servers' core to go quiet (other programs may keep it busy). */
  quietWaitMs: number;
}

export interface CpuCost {
  /** CPU µs the proxy process spent per request handled; null for `direct`. */
  proxyUsPerReq: number | null;
  /** The same for the proxy's main thread alone (the one that serves calls); null for `direct`. */
  servingUsPerReq: number | null;
  /** CPU µs the mock vendor spent per request (same work whatever the target: the baseline). */
  mockUsPerReq: number;
  /** Cores' worth of CPU over the phase (1.0 = one core fully busy). */
  proxyCores: number | null;
  mockCores: number;
  /** The load generator's own CPU, to see whether it, not the target, was the limit. */
  clientCores: number;
  /** Busy share of the servers' core (all processes on it) during the load. */
  serverCoreBusy: number | null;
  /** Cores' worth of CPU on the servers' core used by neither the proxy nor the mock (should be ≈ 0). */
  otherCores: number | null;
  /** Busy share of the servers' core just before the phase started (after waiting for it to go quiet). */
  serverCoreBusyBefore: number | null;
  /** How long after the load the proxy and mock kept working (deferred writes, GC); counted in the µs/req. */
  settleMs: number;
}

export interface PhaseResult {
  load: LoadName;
  target: TargetName;
  sent: number;
  ok: number;
  errors: Record<string, number>;
  /** Successful requests per second over the phase. */
  throughput: number;
  latency: LatencySummary;
  ttfb: LatencySummary | null;
  sendLag: LatencySummary | null;
  cpu: CpuCost;
  wallMs: number;
}

let nextId = 1_000_000;

function takeIds(n: number): number {
  const first = nextId;
  nextId += n;
  return first;
}

interface Snapshot {
  proxy: number;
  serving: number;
  mock: number;
  core: string;
  client: NodeJS.CpuUsage;
  at: number;
}

function snapshot(target: Target, mock: Child, core: number | undefined): Snapshot {
  return {
    proxy: target.proxy ? cpuTicks(target.proxy.pid) : 0,
    serving: target.proxy ? servingThreadTicks(target.proxy.pid) : 0,
    mock: cpuTicks(mock.pid),
    core: core === undefined ? '' : coreStatLine(core),
    client: process.cpuUsage(),
    at: performance.now(),
  };
}

/**
 * CPU per request runs from `before` to `settled` (the load plus the work it left behind); the
 * cores' worth figures describe the load window only (`before` to `loaded`).
 */
function cost(before: Snapshot, loaded: Snapshot, settled: Snapshot, target: Target, handled: number, busyBefore: number | null): CpuCost {
  const wallSec = (loaded.at - before.at) / 1000;
  const cores = (ticks: number) => ticks / CLOCK_TICKS / wallSec;
  const client = process.cpuUsage(before.client);
  const proxyCores = target.proxy ? cores(loaded.proxy - before.proxy) : null;
  const mockCores = cores(loaded.mock - before.mock);
  const serverCoreBusy = before.core && loaded.core ? coreBusyShare(before.core, loaded.core) : null;
  return {
    proxyUsPerReq: target.proxy ? cpuMicrosPerRequest(settled.proxy - before.proxy, CLOCK_TICKS, handled) : null,
    servingUsPerReq: target.proxy ? cpuMicrosPerRequest(settled.serving - before.serving, CLOCK_TICKS, handled) : null,
    mockUsPerReq: cpuMicrosPerRequest(settled.mock - before.mock, CLOCK_TICKS, handled),
    proxyCores,
    mockCores,
    clientCores: (client.user + client.system) / 1e6 / wallSec,
    serverCoreBusy,
    otherCores: serverCoreBusy === null ? null : Math.max(0, serverCoreBusy - (proxyCores ?? 0) - mockCores),
    serverCoreBusyBefore: busyBefore,
    settleMs: settled.at - loaded.at,
  };
}

/** Runs `spec` against `target`: fresh pool, primed connections, then the measured window. */
export async function runPhase(spec: LoadSpec, target: Target, mock: Child, s: PhaseSettings): Promise<PhaseResult> {
  const connections = spec.kind === 'closed' ? spec.concurrency : Math.min(256, s.maxInFlight);
  const pool = makePool(target, { connections, timeoutMs: s.timeoutMs });
  try {
    const primeCount = spec.kind === 'closed' ? spec.concurrency : 8;
    const primeErrors = await prime(pool, target, primeCount, spec.stream, s.model, takeIds(primeCount));
    if (primeErrors.length === primeCount) throw new Error(`${target.name}: every priming request failed (${primeErrors[0]})`);
    const pids = [mock.pid, ...(target.proxy ? [target.proxy.pid] : [])];
    await settleProcesses(pids);
    const busyBefore = s.serverCore === undefined ? null : await waitForQuietCore(s.serverCore, 0.1, 300, s.quietWaitMs);
    const before = snapshot(target, mock, s.serverCore);
    const common = { durationMs: spec.durationMs, stream: spec.stream, model: s.model, drainMs: s.drainMs };
    const samples: RunSamples =
      spec.kind === 'closed'
        ? await closedLoop(pool, target, { ...common, concurrency: spec.concurrency, maxRequests: 5_000_000, firstId: takeIds(5_000_000) })
        : await openLoop(pool, target, { ...common, ratePerSec: spec.ratePerSec, maxInFlight: s.maxInFlight, firstId: takeIds(5_000_000) });
    const loaded = snapshot(target, mock, s.serverCore);
    await settleProcesses(pids);
    const settled = snapshot(target, mock, s.serverCore);
    const dropped = samples.errors.dropped_overload ?? 0;
    return {
      load: spec.name,
      target: target.name,
      sent: samples.sent,
      ok: samples.ok,
      errors: samples.errors,
      throughput: samples.elapsedMs > 0 ? (samples.ok * 1000) / samples.elapsedMs : 0,
      latency: summarize(samples.latency),
      ttfb: spec.stream ? summarize(samples.ttfb) : null,
      sendLag: spec.kind === 'open' ? summarize(samples.sendLag) : null,
      cpu: cost(before, loaded, settled, target, samples.sent - dropped, busyBefore),
      wallMs: loaded.at - before.at,
    };
  } finally {
    await pool.destroy().catch(() => {});
  }
}

/** Unmeasured load so JITs, pools and caches settle: closed loop, half non-stream, half stream. */
export async function warmUp(target: Target, ms: number, concurrency: number, s: PhaseSettings): Promise<void> {
  for (const stream of [false, true]) {
    const pool = makePool(target, { connections: concurrency, timeoutMs: s.timeoutMs });
    try {
      await closedLoop(pool, target, {
        concurrency,
        durationMs: ms / 2,
        stream,
        model: s.model,
        drainMs: s.drainMs,
        maxRequests: 5_000_000,
        firstId: takeIds(5_000_000),
      });
    } finally {
      await pool.destroy().catch(() => {});
    }
  }
}
