import { describe, expect, it } from 'vitest';
import {
  added,
  coreBusyShare,
  cpuMicrosPerRequest,
  dueCount,
  latencyFromSchedule,
  parseProcStatTicks,
  percentile,
  ratio,
  scheduledAt,
  summarize,
} from './stats.ts';

const oneToHundred = Array.from({ length: 100 }, (_, i) => i + 1);

describe('percentiles', () => {
  it('picks the nearest-rank sample, so p50 of 1..100 is 50 and p99 is 99', () => {
    expect(percentile(oneToHundred, 50)).toBe(50);
    expect(percentile(oneToHundred, 99)).toBe(99);
    expect(percentile(oneToHundred, 100)).toBe(100);
  });

  it('returns the smallest sample for p0 and the only sample of a one-element array for any p', () => {
    expect(percentile(oneToHundred, 0)).toBe(1);
    expect(percentile([7], 50)).toBe(7);
    expect(percentile([7], 99.9)).toBe(7);
  });

  it('keeps p99.9 of 1000 samples at the 999th one despite floating-point rounding', () => {
    const thousand = Array.from({ length: 1000 }, (_, i) => i + 1);
    expect(percentile(thousand, 99.9)).toBe(999);
  });

  it('is NaN for no samples rather than a made-up number', () => {
    expect(percentile([], 50)).toBeNaN();
    expect(summarize([]).p99).toBeNaN();
  });

  it('summarizes unsorted samples numerically and leaves the input untouched', () => {
    const samples = [10, 2, 33, 4, 1];
    const s = summarize(samples);
    expect(s).toMatchObject({ count: 5, min: 1, max: 33, p50: 4, p99: 33 });
    expect(s.mean).toBeCloseTo(10);
    expect(samples).toEqual([10, 2, 33, 4, 1]);
  });
});

describe('the open-loop schedule', () => {
  it('spaces requests 1/rate apart from the start', () => {
    expect(scheduledAt(1000, 300, 0)).toBe(1000);
    expect(scheduledAt(1000, 200, 1)).toBe(1005);
    expect(scheduledAt(1000, 300, 300)).toBeCloseTo(2000);
  });

  it('has nothing due before the start and the first request due at the start', () => {
    expect(dueCount(1000, 100, 999.9, 50)).toBe(0);
    expect(dueCount(1000, 100, 1000, 50)).toBe(1);
  });

  it('makes every request whose time has come due, so a late timer sends a burst', () => {
    // At 100 req/s requests are due at 0, 10, 20, … ms: 35 ms in, four are due.
    expect(dueCount(0, 100, 35, 50)).toBe(4);
    expect(dueCount(0, 100, 30, 50)).toBe(4);
    expect(dueCount(0, 300, 1000, 1000)).toBe(301);
  });

  it('never makes more requests due than the run has', () => {
    expect(dueCount(0, 100, 60_000, 50)).toBe(50);
  });

  it('measures latency from the scheduled time, so waiting to be sent counts', () => {
    // Due at 10 ms, sent late at 25 ms, answered at 27 ms: 17 ms, not 2 ms.
    expect(latencyFromSchedule(scheduledAt(0, 100, 1), 27)).toBe(17);
  });
});

describe('CPU accounting', () => {
  it('reads utime + stime from /proc/<pid>/stat even when the command name has spaces and parentheses', () => {
    const stat = '4242 (node (main) x) S 1 4242 4242 0 -1 4194560 9000 0 0 0 150 25 0 0 20 0 11 0 100 0 0';
    expect(parseProcStatTicks(stat)).toBe(175);
  });

  it('turns a tick delta into CPU microseconds per request', () => {
    // 50 ticks at 100 Hz = 0.5 s of CPU over 10 000 requests = 50 µs each.
    expect(cpuMicrosPerRequest(50, 100, 10_000)).toBe(50);
    expect(cpuMicrosPerRequest(50, 100, 0)).toBeNaN();
  });

  it('computes how busy a core was from two /proc/stat lines, counting iowait as idle', () => {
    const before = 'cpu1 100 0 50 800 50 0 0 0 0 0';
    const after = 'cpu1 160 0 70 900 70 0 0 0 0 0';
    // delta: user 60, system 20, idle 100, iowait 20 → busy 80 of 200.
    expect(coreBusyShare(before, after)).toBeCloseTo(0.4);
  });
});

describe('comparisons', () => {
  it('subtracts the direct baseline and is NaN when a side is missing', () => {
    expect(added(1.5, 0.5)).toBe(1);
    expect(added(undefined, 0.5)).toBeNaN();
  });

  it('divides gateway by portkey and refuses a zero or negative denominator', () => {
    expect(ratio(1, 4)).toBe(0.25);
    expect(ratio(1, 0)).toBeNaN();
    expect(ratio(1, -0.1)).toBeNaN();
    expect(ratio(Number.NaN, 1)).toBeNaN();
  });
});
