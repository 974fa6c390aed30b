// Savings over time for the dashboard's chart: the tenant's calls in the window, in buckets of
// equal width that span from its first call to its last (so a minute of traffic and a year of
// it both draw as a line of about `points` buckets), each with spend, baseline and the saving
// by source.
//
// Buckets an hour wide or more are summed from the hourly rollup, a minute or more from the
// minute rollup (`call_rollups`, kept by the meter with each batch): a read of at most a few
// thousand rows whatever the tenant's volume, where summing raw calls read every call of the
// window (1.1 s for a month of 330,000 calls). Their edges then fall on whole hours or minutes,
// so the first bucket may hold calls up to one grain older than the window.
// Narrower buckets (a window of traffic under `points` minutes) sum the raw calls, few by then.
import type { Database } from '../db/database.ts';

export interface SeriesPoint {
  at: string;
  calls: number;
  baseline_cost: number;
  actual_cost: number;
  saving: number;
  by_source: { cache: number; routing: number; ttc: number; trace: number };
}

export interface SavingsSeries {
  bucket_seconds: number;
  points: SeriesPoint[];
}

/** The rollups' grains, widest first, in seconds (migration 0019 and the meter keep both). */
export const GRAINS = [
  { name: 'hour', seconds: 3600 },
  { name: 'minute', seconds: 60 },
] as const;
export type Grain = (typeof GRAINS)[number]['name'] | 'raw';

/** Where a window's buckets are summed: its first bucket's start, their width, and the table. */
export interface Buckets {
  lo: Date;
  width: number;
  grain: Grain;
}

const usd = (m: number) => Math.round(m) / 1e6;
const SOURCES = ['cache', 'routing', 'ttc', 'trace'] as const;

/**
 * The buckets for calls from `lo` to `hi`: `points` of them at most, each a whole number of the
 * widest grain that fits in the width the span asks for, starting on that grain; raw seconds
 * from the first call when no grain fits.
 */
export function bucketsFor(lo: Date, hi: Date, points: number): Buckets {
  const width = Math.max(1, Math.ceil((hi.getTime() - lo.getTime()) / 1000 / (points - 1)));
  for (const g of GRAINS) {
    if (width < g.seconds) continue;
    const start = Math.floor(lo.getTime() / (g.seconds * 1000)) * g.seconds * 1000;
    // a bucket count that still spans hi from the earlier start, in whole grains
    const span = (hi.getTime() - start) / 1000;
    return { lo: new Date(start), width: Math.max(g.seconds, Math.ceil(span / (points - 1) / g.seconds) * g.seconds), grain: g.name };
  }
  return { lo, width, grain: 'raw' };
}

interface BucketRow {
  bucket: number;
  source: string;
  calls: number;
  baseline: number;
  actual: number;
  saving: number;
}

/** Per bucket and saving source, the sums of the tenant's calls from `b.lo` on, read from `b.grain`'s table. */
export async function bucketSums(db: Database, accountId: string, b: Buckets): Promise<BucketRow[]> {
  const conn = db.em().getConnection();
  if (b.grain === 'raw') {
    return (await conn.execute(
      `select floor(extract(epoch from (created_at - ?::timestamptz)) / ?)::int as bucket, coalesce(saving_source, '') as source,
              count(*)::int as calls, sum(baseline_micros)::float8 as baseline, sum(actual_micros)::float8 as actual, sum(saving_micros)::float8 as saving
         from call_records where account_id = ? and created_at >= ?
        group by 1, 2 order by 1, 2`,
      [b.lo.toISOString(), b.width, accountId, b.lo.toISOString()],
    )) as BucketRow[];
  }
  return (await conn.execute(
    `select floor(extract(epoch from (at - ?::timestamptz)) / ?)::int as bucket, saving_source as source,
            sum(calls)::int as calls, sum(baseline_micros)::float8 as baseline, sum(actual_micros)::float8 as actual, sum(saving_micros)::float8 as saving
       from call_rollups where account_id = ? and grain = ? and at >= ?
      group by 1, 2 order by 1, 2`,
    [b.lo.toISOString(), b.width, accountId, b.grain, b.lo.toISOString()],
  )) as BucketRow[];
}

/** The points of a series from its bucket sums (micro-dollars summed per bucket, turned into USD once). */
export function toSeries(b: Buckets, rows: BucketRow[]): SavingsSeries {
  const byBucket = new Map<number, { calls: number; baseline: number; actual: number; saving: number; sources: Record<(typeof SOURCES)[number], number> }>();
  for (const r of rows) {
    let x = byBucket.get(r.bucket);
    if (!x) byBucket.set(r.bucket, (x = { calls: 0, baseline: 0, actual: 0, saving: 0, sources: { cache: 0, routing: 0, ttc: 0, trace: 0 } }));
    x.calls += r.calls;
    x.baseline += r.baseline;
    x.actual += r.actual;
    x.saving += r.saving;
    const source = SOURCES.find((s) => s === r.source);
    if (source) x.sources[source] += r.saving;
  }
  const points = [...byBucket].map(([bucket, x]): SeriesPoint => ({
    at: new Date(b.lo.getTime() + bucket * b.width * 1000).toISOString(),
    calls: x.calls,
    baseline_cost: usd(x.baseline),
    actual_cost: usd(x.actual),
    saving: usd(x.saving),
    by_source: { cache: usd(x.sources.cache), routing: usd(x.sources.routing), ttc: usd(x.sources.ttc), trace: usd(x.sources.trace) },
  }));
  return { bucket_seconds: b.width, points };
}

export async function savingsSeries(db: Database, accountId: string, days: number, points: number): Promise<SavingsSeries> {
  const conn = db.em().getConnection();
  const since = new Date(Date.now() - days * 86_400_000).toISOString();
  const [span] = (await conn.execute(
    `select min(created_at) as lo, max(created_at) as hi from call_records where account_id = ? and created_at >= ?`,
    [accountId, since],
  )) as { lo: Date | string | null; hi: Date | string | null }[];
  if (!span?.lo || !span.hi) return { bucket_seconds: 0, points: [] };
  const b = bucketsFor(new Date(span.lo), new Date(span.hi), points);
  return toSeries(b, await bucketSums(db, accountId, b));
}
