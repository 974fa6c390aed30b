// The dashboard's savings chart reads the hourly and per-minute rollups the meter keeps with each
// batch (migration 0019). Differential: for the same buckets, the rollups give what summing the
// raw calls gives, whether the meter kept them or the migration's backfill made them; a replayed
// batch adds nothing twice; the retention job drops them with their months.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollupsFrom } from '../src/db/migrations/0019-call-rollups.ts';
import { monthStart, Partitions } from '../src/db/partitions.ts';
import type { CallRow } from '../src/meter/rows.ts';
import { bucketsFor, bucketSums, savingsSeries, toSeries, type Buckets } from '../src/reporting/savings-series.ts';
import { authed, signup, startGateway, type TestGateway } from './support/gateway.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw.close();
});

const exec = (q: string, params: unknown[] = []) => gw.services.db.em().getConnection().execute(q, params);
const SOURCES = ['routing', 'cache', 'ttc', 'trace', null] as const;

function call(id: string, t: { account_id: string; workflow_id: string }, at: Date, i: number): CallRow {
  const baseline = 1000 + (i % 7) * 100;
  const actual = 200 + (i % 5) * 50;
  const source = SOURCES[i % SOURCES.length]!;
  return {
    id, account_id: t.account_id, workflow_id: t.workflow_id, created_at: at.toISOString(), requested_model: 'm', served_model: 'm', provider: 'openai',
    stream: false, status: 200, error_code: null, prompt_tokens: 1, completion_tokens: 1, cached_tokens: 0, reasoning_tokens: 0, usage_estimated: false,
    baseline_micros: baseline, served_micros: actual, actual_micros: actual, exploration_micros: 0, saving_micros: source ? baseline - actual : 0, saving_source: source,
    cache_hit: source === 'cache', reasons: [], latency_ms: 1, overhead_ms: 0, vendor_status: 200, idempotency_key: null, detail: {},
  };
}

/** `n` calls from `spanMs` ago to now at uneven gaps, metered in a few batches. */
async function meterCalls(t: { account_id: string; workflow_id: string }, n: number, spanMs: number): Promise<CallRow[]> {
  const now = Date.now();
  const calls = Array.from({ length: n }, (_, i) => call(`call_series_${t.account_id}_${i}`, t, new Date(now - spanMs + Math.floor(((i * i) % n) * (spanMs / n)) + i), i));
  for (let i = 0; i < n; i += 37) gw.services.meter.record({ calls: calls.slice(i, i + 37), activity: [], events: [] });
  await gw.services.meter.flush();
  return calls;
}

async function rollupRows(accountId: string): Promise<unknown[]> {
  return exec(`select grain, at, saving_source, calls::int, baseline_micros::int, actual_micros::int, saving_micros::int from call_rollups where account_id = ? order by 1, 2, 3`, [accountId]);
}

describe('savings chart buckets', () => {
  it('takes the widest grain that fits the width the span asks for, on its edges, and never more than the points asked', () => {
    const lo = new Date('2026-03-01T10:17:43Z');
    const days = bucketsFor(lo, new Date(lo.getTime() + 10 * 86_400_000), 40);
    expect(days.grain).toBe('hour');
    expect(days.lo.toISOString()).toBe('2026-03-01T10:00:00.000Z');
    expect(days.width % 3600).toBe(0);
    const hours = bucketsFor(lo, new Date(lo.getTime() + 2 * 3_600_000), 40);
    expect(hours).toMatchObject({ grain: 'minute', width: 240 });
    expect(hours.lo.toISOString()).toBe('2026-03-01T10:17:00.000Z');
    const minutes = bucketsFor(lo, new Date(lo.getTime() + 10 * 60_000), 40);
    expect(minutes).toMatchObject({ grain: 'raw', width: 16, lo });
    for (const b of [days, hours, minutes]) {
      const hi = b === days ? lo.getTime() + 10 * 86_400_000 : b === hours ? lo.getTime() + 2 * 3_600_000 : lo.getTime() + 10 * 60_000;
      expect(Math.floor((hi - b.lo.getTime()) / 1000 / b.width) + 1).toBeLessThanOrEqual(40);
    }
  });
});

describe('savings chart rollups', () => {
  it('sums per hour and per minute what the raw calls sum, bucket for bucket, and the endpoint serves them', async () => {
    for (const [span, grain] of [
      [9 * 86_400_000, 'hour'],
      [3 * 3_600_000, 'minute'],
    ] as const) {
      const t = await signup(gw);
      const calls = await meterCalls(t, 400, span);
      const times = calls.map((c) => Date.parse(c.created_at));
      const b = bucketsFor(new Date(Math.min(...times)), new Date(Math.max(...times)), 40);
      expect(b.grain).toBe(grain);
      const fromRollups = await bucketSums(gw.services.db, t.account_id, b);
      const raw: Buckets = { ...b, grain: 'raw' };
      expect(fromRollups).toEqual(await bucketSums(gw.services.db, t.account_id, raw));
      expect(fromRollups.reduce((s, r) => s + r.calls, 0)).toBe(400);
      // the endpoint: the same buckets, in USD
      const series = await savingsSeries(gw.services.db, t.account_id, 30, 40);
      expect(series).toEqual(toSeries(b, fromRollups));
      const r = await fetch(`${gw.url}/v1/dashboard/savings/series?days=30&points=40`, { headers: authed(t.api_key) });
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual(series);
    }
  });

  it('adds a replayed batch once, and the migration\'s backfill from raw calls gives what the meter kept', async () => {
    const t = await signup(gw);
    const calls = await meterCalls(t, 120, 5 * 86_400_000);
    const kept = await rollupRows(t.account_id);
    expect(kept.length).toBeGreaterThan(0);
    // the replay of a killed process's file: the calls are stored already, nothing is added
    gw.services.meter.record({ calls: calls.slice(0, 50), activity: [], events: [] });
    await gw.services.meter.flush();
    expect(await rollupRows(t.account_id)).toEqual(kept);
    await exec(`delete from call_rollups where account_id = ?`, [t.account_id]);
    await exec(rollupsFrom('where account_id = ?'), [t.account_id]);
    expect(await rollupRows(t.account_id)).toEqual(kept);
  });

  it('drops the rollups of the months the retention job drops, and keeps the rest', async () => {
    const now = new Date();
    const job = new Partitions({ db: gw.services.db, logger: gw.services.logger, retentionDays: 90 });
    await job.ensure(monthStart(now, -6));
    const t = await signup(gw);
    const old = call(`call_series_old_${t.account_id}`, t, new Date(monthStart(now, -6).getTime() + 86_400_000), 0);
    const recent = call(`call_series_new_${t.account_id}`, t, now, 0);
    gw.services.meter.record({ calls: [old, recent], activity: [], events: [] });
    await gw.services.meter.flush();
    expect(await rollupRows(t.account_id)).toHaveLength(4);
    await job.dropExpired(now);
    const left = (await rollupRows(t.account_id)) as { at: Date | string }[];
    expect(left).toHaveLength(2);
    for (const r of left) expect(new Date(r.at).getTime()).toBeGreaterThan(now.getTime() - 3_600_000 - 1);
  });
});
