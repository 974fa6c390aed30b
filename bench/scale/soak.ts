// The soak: replicas behind the balancer under the mixed load at a fixed rate (open loop), each
// replica's RSS, open file descriptors and threads sampled from /proc once a second.
import { readdirSync, readFileSync } from 'node:fs';
import { makePool, openLoop, type Endpoint } from '../overhead/load.ts';
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

export function sampleProcess(pid: number, atMs: number): Sample {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { atMs, rssKb: field('VmRSS'), fds: readdirSync(`/proc/${pid}/fd`).length, threads: field('Threads') };
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
        replicas.forEach((r, i) => samples[i]!.push(sampleProcess(r.child.pid, Date.now() - start)));
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
