// The soak's verdicts on file descriptors and timers: a count that settles (a pool filling up) is
// not growth, one that keeps climbing is; and the timers are read from the gateway's own /metrics
// text as prom-client renders it.
import { describe, expect, it } from 'vitest';
import { Metrics } from '../../apps/api/src/http/metrics.ts';
import { renderSoak } from './report.ts';
import { metricValue } from '../prometheus.ts';
import { climbs, type Sample, type SoakResult } from './soak.ts';

/** One sample a second for `seconds`, the count given by `at(second)`. */
function series(seconds: number, at: (s: number) => number): Sample[] {
  return Array.from({ length: seconds }, (_, s) => ({ atMs: s * 1000, rssKb: 300_000, fds: at(s), threads: 11, timers: at(s), handles: 20 }));
}

const WARMUP = 60_000;

describe('growth of a count through the soak', () => {
  it('takes a count that rises early and stays as settled', () => {
    const pool = series(120, (s) => (s < 70 ? 36 : 50)); // a pool filling up just after warm-up
    expect(climbs(pool, WARMUP, (x) => x.fds)).toMatchObject({ peak: 50, end: 50, grows: false });
  });

  it('takes a count that keeps climbing as growth', () => {
    const leak = series(120, (s) => 30 + Math.floor(s / 3)); // one more every 3 s
    const c = climbs(leak, WARMUP, (x) => x.timers);
    expect(c.grows).toBe(true);
    expect(c.end).toBeGreaterThan(c.peak);
  });

  it('fails the soak on climbing timers and names the replica', () => {
    const r: SoakResult = {
      sent: 10, ok: 10, errors: {}, faults: {}, kinds: {}, latency: { count: 10, min: 1, mean: 1, p50: 1, p90: 1, p99: 1, p999: 1, max: 1 },
      samples: [series(120, () => 40), series(120, (s) => 30 + Math.floor(s / 3))],
      warmupMs: WARMUP,
      ledger: { acknowledged: 10, listed: 10, lost: 0, doubleCounted: 0, unacknowledged: 0, totalsMatch: true, problems: [] },
    };
    const { failed, text } = renderSoak(r);
    expect(failed.some((l) => l.startsWith('replica 2: pending timers grew'))).toBe(true);
    expect(failed.some((l) => l.startsWith('replica 2: open fds grew'))).toBe(true);
    expect(failed.some((l) => l.startsWith('replica 1'))).toBe(false);
    expect(text).toContain('timers');
  });
});

describe('the timers of a replica', () => {
  it("reads pending timers and active handles from the gateway's /metrics text (prom-client's process metrics)", async () => {
    const metrics = new Metrics({ meterPending: () => 0 });
    const timers = [setTimeout(() => {}, 60_000), setTimeout(() => {}, 60_000)];
    try {
      const text = await metrics.render();
      expect(metricValue(text, 'nodejs_active_resources{type="Timeout"}')).toBeGreaterThanOrEqual(2);
      expect(metricValue(text, 'nodejs_active_handles_total')).toBeGreaterThanOrEqual(0);
      expect(metricValue(text, 'nodejs_no_such_metric')).toBeNaN();
    } finally {
      for (const t of timers) clearTimeout(t);
    }
  });
});
