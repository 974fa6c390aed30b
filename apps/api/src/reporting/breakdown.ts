// Where the money went, for the dashboard: over the last `days`, the saving per step and per
// source (exploration spend apart), and the traffic per model over time with the exploration
// spend as a series of its own. Summed from the tenant's raw calls in the window (the rollups
// keep no step, model or exploration); docs/decisions.md, "The dashboard's breakdown".
import type { Database } from '../db/database.ts';
import { bucketsFor } from './savings-series.ts';

const usd = (m: number) => Math.round(m) / 1e6;

interface Money {
  calls: number;
  baseline_cost: number;
  actual_cost: number;
  exploration_cost: number;
  saving: number;
}

interface SumRow {
  calls: number;
  baseline: number;
  actual: number;
  exploration: number;
  saving: number;
}

const money = (r: SumRow): Money => ({ calls: Number(r.calls), baseline_cost: usd(r.baseline), actual_cost: usd(r.actual), exploration_cost: usd(r.exploration), saving: usd(r.saving) });

const SUMS = `count(*)::int as calls, coalesce(sum(baseline_micros),0)::float8 as baseline, coalesce(sum(actual_micros),0)::float8 as actual,
  coalesce(sum(exploration_micros),0)::float8 as exploration, coalesce(sum(saving_micros),0)::float8 as saving`;

export interface Breakdown {
  days: number;
  totals: Money;
  by_step: (Money & { agent: string; agent_name: string; step: string | null; fingerprint: string | null })[];
  by_source: (Money & { source: string })[];
  bucket_seconds: number;
  traffic: { at: string; calls: number; exploration_cost: number; by_model: { model: string; calls: number; actual_cost: number }[] }[];
}

export async function breakdown(db: Database, accountId: string, days: number, points: number): Promise<Breakdown> {
  const conn = db.em().getConnection();
  const since = new Date(Date.now() - days * 86_400_000).toISOString();
  const window = `from call_records c where c.account_id = ? and c.created_at >= ?`;
  const [totals] = (await conn.execute(`select ${SUMS} ${window}`, [accountId, since])) as SumRow[];
  const steps = (await conn.execute(
    `select c.workflow_id as agent, w.name as agent_name, c.detail->'optimizer'->>'step' as step, c.detail->'optimizer'->>'fingerprint' as fingerprint, ${SUMS}
       ${window.replace('from call_records c', 'from call_records c left join workflows w on w.id = c.workflow_id')}
      group by 1, 2, 3, 4 order by sum(c.saving_micros) desc, 1, 3`,
    [accountId, since],
  )) as (SumRow & { agent: string; agent_name: string | null; step: string | null; fingerprint: string | null })[];
  const sources = (await conn.execute(`select coalesce(nullif(c.saving_source, ''), 'none') as source, ${SUMS} ${window} group by 1 order by 1`, [accountId, since])) as (SumRow & { source: string })[];
  const [span] = (await conn.execute(`select min(c.created_at) as lo, max(c.created_at) as hi ${window}`, [accountId, since])) as { lo: Date | string | null; hi: Date | string | null }[];
  const base = { days, totals: money(totals!), by_step: steps.map((r) => ({ agent: r.agent, agent_name: r.agent_name ?? r.agent, step: r.step, fingerprint: r.fingerprint, ...money(r) })), by_source: sources.map((r) => ({ source: r.source, ...money(r) })) };
  if (!span?.lo || !span.hi) return { ...base, bucket_seconds: 0, traffic: [] };
  const lo = new Date(span.lo);
  const width = bucketsFor(lo, new Date(span.hi), points).width;
  const rows = (await conn.execute(
    `select floor(extract(epoch from (c.created_at - ?::timestamptz)) / ?)::int as bucket, coalesce(c.served_model, c.requested_model) as model,
            count(*)::int as calls, coalesce(sum(c.actual_micros),0)::float8 as actual, coalesce(sum(c.exploration_micros),0)::float8 as exploration
       ${window} group by 1, 2 order by 1, 2`,
    [lo.toISOString(), width, accountId, since],
  )) as { bucket: number; model: string; calls: number; actual: number; exploration: number }[];
  const buckets = new Map<number, Breakdown['traffic'][number] & { explorationMicros: number }>();
  for (const r of rows) {
    let b = buckets.get(r.bucket);
    if (!b) buckets.set(r.bucket, (b = { at: new Date(lo.getTime() + r.bucket * width * 1000).toISOString(), calls: 0, exploration_cost: 0, explorationMicros: 0, by_model: [] }));
    b.calls += r.calls;
    b.explorationMicros += r.exploration;
    b.by_model.push({ model: r.model, calls: r.calls, actual_cost: usd(r.actual) });
  }
  const traffic = [...buckets.values()].map(({ explorationMicros, ...b }) => ({ ...b, exploration_cost: usd(explorationMicros) }));
  return { ...base, bucket_seconds: width, traffic };
}
