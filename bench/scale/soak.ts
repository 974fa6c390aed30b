// The soak: replicas behind the balancer under the mixed load at a fixed rate (open loop), each
// replica's RSS, open file descriptors and threads sampled from /proc once a second, and its
// pending timers and active handles from its /metrics (prom-client's process metrics).
import { readdirSync, readFileSync } from 'node:fs';
import { makePool, openLoop, type Endpoint } from '../overhead/load.ts';
import { metricValue } from '../prometheus.ts';
import { sleep } from '../overhead/procs.ts';
import { summarize, type LatencySummary } from '../overhead/stats.ts';
import { startBalancer } from './haproxy.ts';
import { checkLedger, type LedgerReport } from './ledger.ts';
import { COMPLETIONS, flushAll, readyProbe } from './measure.ts';
import type { Replica } from './replicas.ts';
import { api, makeAgents, signup } from './tenant.ts';
import { mixedTraffic } from './traffic.ts';

export interface Sample {
  atMs: number;
  rssKb: number;
  fds: number;
  threads: number;
  /** Pending timers (`nodejs_active_resources{type="Timeout"}`) and active handles; NaN when /metrics did not answer. */
  timers: number;
  handles: number;
}

export interface SoakResult {
  sent: number;
  ok: number;
  errors: Record<string, number>;
  faults: Record<string, number>;
  kinds: Record<string, number>;
  latency: LatencySummary;
  /** Per replica: samples over the whole run. */
  samples: Sample[][];
  warmupMs: number;
  ledger: LedgerReport;
}

export function sampleProcess(pid: number, atMs: number): Omit<Sample, 'timers' | 'handles'> {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { atMs, rssKb: field('VmRSS'), fds: readdirSync(`/proc/${pid}/fd`).length, threads: field('Threads') };
}

/** The replica's pending timers and active handles, read from its /metrics. */
async function sampleHandles(origin: string): Promise<{ timers: number; handles: number }> {
  try {
    const text = await (await fetch(`${origin}/metrics`, { signal: AbortSignal.timeout(2_000) })).text();
    // a resource type with none pending is left out of the metric: zero timers, not unknown
    return { timers: metricValue(text, 'nodejs_active_resources{type="Timeout"}') || 0, handles: metricValue(text, 'nodejs_active_handles_total') };
  } catch {
    return { timers: Number.NaN, handles: Number.NaN };
  }
}

/**
 * Whether a count (fds, timers) grows through the measured window rather than settling: the mean
 * of its last five samples against the highest it reached in the window's first half. A pool
 * filling up during warm-up or early on is a plateau; a leak keeps climbing past it.
 */
export function climbs(samples: Sample[], warmupMs: number, pick: (s: Sample) => number): { peak: number; end: number; grows: boolean } {
  const after = samples.filter((s) => s.atMs >= warmupMs && Number.isFinite(pick(s)));
  const half = after.slice(0, Math.ceil(after.length / 2));
  const peak = Math.max(...half.map(pick));
  const tail = after.slice(-5);
  const end = tail.reduce((s, x) => s + pick(x), 0) / Math.max(1, tail.length);
  return { peak, end, grows: !(end <= peak * 1.1 + 2) };
}

/** Growth of a series from the end of warm-up: last sample (mean of the last 5) over the first after warm-up. */
export function growth(samples: Sample[], warmupMs: number, pick: (s: Sample) => number): { base: number; end: number; ratio: number } {
  const after = samples.filter((s) => s.atMs >= warmupMs);
  const base = after.length ? pick(after[0]!) : Number.NaN;
  const tail = after.slice(-5);
  const end = tail.reduce((s, x) => s + pick(x), 0) / Math.max(1, tail.length);
  return { base, end, ratio: end / base - 1 };
}

export async function runSoak(replicas: Replica[], o: { ratePerSec: number; durationMs: number; warmupMs: number; firstId: number }, log: (l: string) => void): Promise<SoakResult> {
  const balancer = await startBalancer(replicas.map((r) => r.hostPort), readyProbe);
  try {
    const owner = await signup(balancer.origin);
    await api(balancer.origin, owner, 'PUT', '/v1/settings/routing', { cache: { exact: true } });
    const total = Math.ceil((o.ratePerSec * (o.durationMs + o.warmupMs)) / 1000);
    const agents = await makeAgents(balancer.origin, owner, total, 'soak');
    const traffic = mixedTraffic(agents, o.firstId, balancer.origin);
    const endpoint: Endpoint = { origin: balancer.origin, path: COMPLETIONS, headers: {} };
    const pool = makePool(endpoint, { connections: 256, timeoutMs: 30_000 });
    const samples: Sample[][] = replicas.map(() => []);
    const start = Date.now();
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const at = Date.now() - start;
        const handles = await Promise.all(replicas.map((r) => sampleHandles(r.origin)));
        replicas.forEach((r, i) => samples[i]!.push({ ...sampleProcess(r.child.pid, at), ...handles[i]! }));
        await sleep(1000);
      }
    })();
    log(`soak: ${o.ratePerSec} req/s for ${(o.durationMs + o.warmupMs) / 1000} s (first ${o.warmupMs / 1000} s warm-up) through ${balancer.origin}`);
    let run;
    try {
      run = await openLoop(pool, endpoint, {
        ratePerSec: o.ratePerSec,
        durationMs: o.durationMs + o.warmupMs,
        stream: false,
        model: 'gpt-4o-mini',
        maxInFlight: 2000,
        drainMs: 10_000,
        firstId: 0,
        request: (i) => traffic.request(i),
        onExchange: (i, s, r) => traffic.onExchange(i, s, r),
      });
      await traffic.settled();
    } finally {
      sampling = false;
      await sampler;
      await pool.destroy().catch(() => {});
    }
    await flushAll(replicas, owner);
    const ledger = await checkLedger(balancer.origin, owner, agents, traffic.acked);
    return { sent: run.sent, ok: run.ok, errors: run.errors, faults: traffic.faults, kinds: traffic.kinds, latency: summarize(run.latency), samples, warmupMs: o.warmupMs, ledger };
  } finally {
    await balancer.stop();
  }
}
