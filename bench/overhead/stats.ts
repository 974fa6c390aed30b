// Pure numbers: percentiles, the open-loop schedule, CPU accounting and comparisons.
// No I/O here, so stats.test.ts can pin the math down.

export interface LatencySummary {
  count: number;
  min: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
}

/**
 * Nearest-rank percentile of an ascending array: the smallest sample with at least p% of the
 * samples at or below it. NaN for an empty array.
 */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  if (p <= 0) return sorted[0]!;
  if (p >= 100) return sorted[n - 1]!;
  // The epsilon keeps 99.9 % of 1000 samples at rank 999 despite 0.999 * 1000 = 999.0000000000001.
  const rank = Math.ceil((p / 100) * n - 1e-9);
  return sorted[Math.min(n, Math.max(1, rank)) - 1]!;
}

/** Summary of latency samples (any order, in ms). The input is not modified. */
export function summarize(samples: ArrayLike<number>): LatencySummary {
  const sorted = Float64Array.from(samples).sort();
  const n = sorted.length;
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    count: n,
    min: n ? sorted[0]! : Number.NaN,
    mean: n ? sum / n : Number.NaN,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    p999: percentile(sorted, 99.9),
    max: n ? sorted[n - 1]! : Number.NaN,
  };
}

/** When request `index` (0-based) of an open-loop run at `ratePerSec` is due, in ms after `startMs`. */
export function scheduledAt(startMs: number, ratePerSec: number, index: number): number {
  return startMs + (index * 1000) / ratePerSec;
}

/**
 * How many requests of the schedule are due at `nowMs` (request i is due at scheduledAt(i)),
 * never more than `total`. The generator sends every due request it has not sent yet, so a late
 * timer sends a burst instead of silently stretching the schedule.
 */
export function dueCount(startMs: number, ratePerSec: number, nowMs: number, total: number): number {
  if (nowMs < startMs) return 0;
  const due = Math.floor(((nowMs - startMs) * ratePerSec) / 1000 + 1e-9) + 1;
  return Math.min(total, due);
}

/**
 * Latency measured from when the request was supposed to go out, not from when it went out: a
 * stalled server delays later sends too, and that wait belongs to the server (coordinated omission).
 */
export function latencyFromSchedule(scheduledMs: number, doneMs: number): number {
  return doneMs - scheduledMs;
}

/** CPU time of a process in clock ticks, from the text of /proc/<pid>/stat (utime + stime). */
export function parseProcStatTicks(stat: string): number {
  // The command name (field 2) is in parentheses and may hold spaces or ')'; fields after the last ')' are fixed.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state); utime is field 14 and stime field 15.
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error(`unreadable /proc stat: ${stat.slice(0, 80)}`);
  return utime + stime;
}

/** CPU microseconds per request from a tick delta. NaN without requests. */
export function cpuMicrosPerRequest(tickDelta: number, clockTicksPerSec: number, requests: number): number {
  if (requests <= 0) return Number.NaN;
  return (tickDelta * 1_000_000) / clockTicksPerSec / requests;
}

/** Busy share (0..1) of one core between two readings of its /proc/stat line (`cpuN user nice system idle iowait …`). */
export function coreBusyShare(before: string, after: string): number {
  const parse = (line: string) => line.trim().split(/\s+/).slice(1).map(Number);
  const a = parse(before);
  const b = parse(after);
  const delta = b.map((v, i) => v - (a[i] ?? 0));
  const total = delta.reduce((s, v) => s + v, 0);
  const idle = (delta[3] ?? 0) + (delta[4] ?? 0);
  return total > 0 ? (total - idle) / total : Number.NaN;
}

/** `value - base`, NaN when either is missing. */
export function added(value: number | undefined, base: number | undefined): number {
  if (value === undefined || base === undefined) return Number.NaN;
  return value - base;
}

/** `a / b`, NaN when it means nothing (missing values, b ≤ 0). */
export function ratio(a: number | undefined, b: number | undefined): number {
  if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b <= 0) return Number.NaN;
  return a / b;
}
