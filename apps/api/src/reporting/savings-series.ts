// Savings over time for the dashboard's chart: the tenant's calls in the window, in buckets of
// equal width that span from its first call to its last (so a minute of traffic and a year of
// it both draw as a line of about `points` buckets), each with spend, baseline and the saving
// by source.
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

const usd = (m: number) => Math.round(m) / 1e6;
const SOURCES = ['cache', 'routing', 'ttc', 'trace'] as const;

export async function savingsSeries(db: Database, accountId: string, days: number, points: number): Promise<SavingsSeries> {
  const conn = db.em().getConnection();
  const since = new Date(Date.now() - days * 86_400_000).toISOString();
  const [span] = (await conn.execute(
    `select min(created_at) as lo, max(created_at) as hi from call_records where account_id = ? and created_at >= ?`,
    [accountId, since],
  )) as { lo: Date | string | null; hi: Date | string | null }[];
  if (!span?.lo || !span.hi) return { bucket_seconds: 0, points: [] };
  const lo = new Date(span.lo);
  const width = Math.max(1, Math.ceil((new Date(span.hi).getTime() - lo.getTime()) / 1000 / (points - 1)));
  const rows = (await conn.execute(
    `select floor(extract(epoch from (created_at - ?::timestamptz)) / ?)::int as bucket, coalesce(saving_source, '') as source,
            count(*)::int as calls, sum(baseline_micros)::float8 as baseline, sum(actual_micros)::float8 as actual, sum(saving_micros)::float8 as saving
       from call_records where account_id = ? and created_at >= ?
      group by 1, 2 order by 1`,
    [lo.toISOString(), width, accountId, since],
  )) as { bucket: number; source: string; calls: number; baseline: number; actual: number; saving: number }[];
  // sums in micro-dollars per bucket, turned into USD once
  const byBucket = new Map<number, { calls: number; baseline: number; actual: number; saving: number; sources: Record<(typeof SOURCES)[number], number> }>();
  for (const r of rows) {
    let b = byBucket.get(r.bucket);
    if (!b) byBucket.set(r.bucket, (b = { calls: 0, baseline: 0, actual: 0, saving: 0, sources: { cache: 0, routing: 0, ttc: 0, trace: 0 } }));
    b.calls += r.calls;
    b.baseline += r.baseline;
    b.actual += r.actual;
    b.saving += r.saving;
    const source = SOURCES.find((x) => x === r.source);
    if (source) b.sources[source] += r.saving;
  }
  const series = [...byBucket].map(([bucket, b]): SeriesPoint => ({
    at: new Date(lo.getTime() + bucket * width * 1000).toISOString(),
    calls: b.calls,
    baseline_cost: usd(b.baseline),
    actual_cost: usd(b.actual),
    saving: usd(b.saving),
    by_source: { cache: usd(b.sources.cache), routing: usd(b.sources.routing), ttc: usd(b.sources.ttc), trace: usd(b.sources.trace) },
  }));
  return { bucket_seconds: width, points: series };
}
