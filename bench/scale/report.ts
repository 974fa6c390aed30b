// Tables for the scale run and the soak, and their verdicts against the acceptance.
import type { LatencySummary } from '../overhead/stats.ts';
import type { StepResult } from './measure.ts';
import type { ScaleOptions } from './args.ts';
import { cycleRatios, isCount, labelsOf, medianOf, type RoundResult } from './rounds.ts';
import { climbs, growth, type Sample, type SoakResult } from './soak.ts';

const f = (n: number, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : '–');
const signed = (n: number, d: number) => (n >= 0 ? `+${f(n, d)}` : f(n, d));
const errs = (e: Record<string, number>) => Object.entries(e).map(([k, v]) => `${k}×${v}`).join(' ') || '0';

function table(head: string[], rows: string[][]): string {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join(' | ')} |`;
  return [line(head), `|${w.map((n, i) => (i === 0 ? ':' : '') + '-'.repeat(n + 1) + (i === 0 ? '' : ':')).join('|')}|`, ...rows.map(line)].join('\n');
}

/** How a run's load follows the replica count, for its table's heading. */
function loadText(o: Pick<ScaleOptions, 'ratePerSec' | 'load'>): string {
  return o.load === 'scaled' ? `N replicas at N × ${o.ratePerSec} req/s` : `every count at ${o.ratePerSec} req/s in all`;
}

/** The scale table and the verdicts; `failed` lists what misses the acceptance. */
export function renderScale(steps: StepResult[], direct: LatencySummary, o: Pick<ScaleOptions, 'ratePerSec' | 'load'>): { text: string; failed: string[] } {
  const one = steps.find((s) => s.replicas === 1) ?? steps[0]!;
  const rows = steps.map((s) => [
    String(s.replicas),
    `${s.ok}/${s.sent}`,
    errs(s.errors),
    f(s.throughput),
    signed(s.latency.p50 - direct.p50, 2),
    signed(s.latency.p99 - direct.p99, 1),
    f(s.cpuUsPerCall.total),
    `${f(s.cpuUsPerCall.total / one.cpuUsPerCall.total, 2)}×`,
    `${f(s.cpuUsPerCall.replicas)} / ${f(s.cpuUsPerCall.haproxy)} / ${f(s.cpuUsPerCall.postgres)} / ${f(s.cpuUsPerCall.redis)}`,
    f(s.roundTripsPerCall.postgres, 3),
    `${f(s.roundTripsPerCall.redis, 2)} (+${f(s.roundTripsPerCall.redisInScripts, 1)})`,
    `${s.ledger.lost} / ${s.ledger.doubleCounted} / ${s.ledger.totalsMatch ? 'yes' : 'NO'}`,
    f(s.idleCpuMsPerSec.replicas + s.idleCpuMsPerSec.haproxy + s.idleCpuMsPerSec.postgres + s.idleCpuMsPerSec.redis, 1),
    `${f(s.marginalUsPerCall)} (${f(s.marginalUsPerCall / one.marginalUsPerCall, 2)}×)`,
  ]);
  const head = ['replicas', 'ok/sent', 'errors', 'max req/s', '+p50 ms', '+p99 ms', 'CPU µs/call', 'vs 1', 'replicas/haproxy/pg/redis µs', 'pg xacts/call', 'redis trips/call (+in scripts)', 'lost/double/totals', 'idle CPU ms/s', 'marginal µs/call (vs 1)'];
  const failed: string[] = [];
  for (const s of steps) {
    if (s.ok !== s.sent) failed.push(`${s.replicas} replicas: ${s.sent - s.ok} errors (${errs(s.errors)})`);
    if (s.ledger.problems.length) failed.push(`${s.replicas} replicas: ledger — ${s.ledger.problems.join('; ')}`);
    if (s !== one && s.cpuUsPerCall.total > 1.15 * one.cpuUsPerCall.total) failed.push(`${s.replicas} replicas: CPU per call ${f(s.cpuUsPerCall.total / one.cpuUsPerCall.total, 2)}× one replica's (limit 1.15×)`);
  }
  const text = `\n## Scale-out, ${loadText(o)} (open loop), direct to the mock p50 ${f(direct.p50, 2)} ms, p99 ${f(direct.p99, 2)} ms\n\n${table(head, rows)}\n`;
  return { text, failed };
}

export function renderSoak(r: SoakResult): { text: string; failed: string[] } {
  const rows = r.samples.map((s, i) => {
    const rss = growth(s, r.warmupMs, (x) => x.rssKb);
    const fds = growth(s, r.warmupMs, (x) => x.fds);
    const thr = growth(s, r.warmupMs, (x) => x.threads);
    const timers = growth(s, r.warmupMs, (x) => x.timers);
    const handles = growth(s, r.warmupMs, (x) => x.handles);
    return [
      `replica ${i + 1}`,
      `${f(rss.base / 1024, 1)} → ${f(rss.end / 1024, 1)} MB`,
      `${f(rss.ratio * 100, 1)} %`,
      `${f(fds.base)} → ${f(fds.end, 1)}`,
      `${f(timers.base)} → ${f(timers.end, 1)}`,
      `${f(handles.base)} → ${f(handles.end, 1)}`,
      `${f(thr.base)} → ${f(thr.end, 1)}`,
      `${f(Math.max(...s.map((x) => x.rssKb)) / 1024, 1)} MB`,
    ];
  });
  const failed: string[] = [];
  const errors = r.sent - r.ok;
  if (errors) failed.push(`${errors} errors (${errs(r.errors)})`);
  if (Object.keys(r.faults).length) failed.push(`faults: ${errs(r.faults)}`);
  if (r.ledger.problems.length) failed.push(`ledger — ${r.ledger.problems.join('; ')}`);
  r.samples.forEach((s, i) => {
    const g = growth(s, r.warmupMs, (x) => x.rssKb).ratio;
    if (!(g < 0.1)) failed.push(`replica ${i + 1}: RSS grew ${f(g * 100, 1)} % after warm-up (limit 10 %)`);
    for (const [what, pick] of [['open fds', (x: Sample) => x.fds], ['pending timers', (x: Sample) => x.timers]] as const) {
      const c = climbs(s, r.warmupMs, pick);
      if (c.grows) failed.push(`replica ${i + 1}: ${what} grew to ${f(c.end, 1)} at the end, over ${f(c.peak)} at most in the first half after warm-up`);
    }
  });
  const text = [
    `\n## Soak: ${r.ok}/${r.sent} ok, errors ${errs(r.errors)}, faults ${errs(r.faults)}, p50 ${f(r.latency.p50, 2)} ms, p99 ${f(r.latency.p99, 1)} ms`,
    `mix: ${errs(r.kinds)}`,
    `ledger: ${r.ledger.acknowledged} acknowledged, ${r.ledger.listed} listed, ${r.ledger.lost} lost, ${r.ledger.doubleCounted} double-counted, totals ${r.ledger.totalsMatch ? 'add up' : 'DO NOT add up'}`,
    '',
    table(['', 'RSS after warm-up → end', 'growth', 'fds', 'timers', 'handles', 'threads', 'RSS max'], rows),
  ].join('\n');
  return { text, failed };
}

/**
 * The rounds: per replica count the median over its rounds of each figure, the CPU-per-call ratio
 * to one replica's (median over cycles, with its spread), and the verdicts.
 */
export function renderRounds(rounds: RoundResult[], perCycle: number, direct: LatencySummary, o: Pick<ScaleOptions, 'ratePerSec' | 'load'>, throughput: Record<number, number>): { text: string; failed: string[] } {
  const labels = labelsOf(rounds);
  const ratios = cycleRatios(rounds, perCycle, (r) => r.cpuUsPerCall.total);
  const replicaRatios = cycleRatios(rounds, perCycle, (r) => r.cpuUsPerCall.replicas);
  const med = (rs: RoundResult[], pick: (r: RoundResult) => number) => medianOf(rs.map(pick));
  const rows = labels.map((label) => {
    const rs = rounds.filter((r) => r.label === label);
    const n = rs[0]!.replicas;
    const q = ratios.find((x) => x.label === label)!;
    const qr = replicaRatios.find((x) => x.label === label)!;
    const ok = rs.reduce((s, r) => s + r.ok, 0);
    const sent = rs.reduce((s, r) => s + r.sent, 0);
    return [
      label,
      `${ok}/${sent}`,
      f(isCount(label) ? (throughput[n] ?? Number.NaN) : Number.NaN),
      signed(med(rs, (r) => r.latency.p50) - direct.p50, 2),
      f(med(rs, (r) => r.cpuUsPerCall.total)),
      `${f(q.median, 2)}× (${f(q.min, 2)}–${f(q.max, 2)})`,
      `${f(med(rs, (r) => r.cpuUsPerCall.replicas))} / ${f(med(rs, (r) => r.cpuUsPerCall.haproxy))} / ${f(med(rs, (r) => r.cpuUsPerCall.postgres))} / ${f(med(rs, (r) => r.cpuUsPerCall.redis))}`,
      `${f(qr.median, 2)}×`,
      f(med(rs, (r) => r.switchesPerCall), 2),
      f(med(rs, (r) => r.idleMsPerSec.total), 1),
      `${f(med(rs, (r) => r.machineBusy * 100))} % / ${f(med(rs, (r) => r.sutCores), 2)}`,
      f(med(rs, (r) => r.pgXactsPerCall), 3),
      `${f(med(rs, (r) => r.redisPerCall), 2)} (+${f(med(rs, (r) => r.redisInScriptsPerCall), 1)})`,
      `${rs.reduce((s, r) => s + r.ledger.lost, 0)} / ${rs.reduce((s, r) => s + r.ledger.doubleCounted, 0)} / ${rs.every((r) => r.ledger.totalsMatch) ? 'yes' : 'NO'}`,
    ];
  });
  const head = ['replicas', 'ok/sent', 'max req/s', '+p50 ms', 'CPU µs/call', 'vs 1 (spread)', 'replicas/haproxy/pg/redis µs', 'replicas vs 1', 'switches/call', 'idle ms/s', 'machine busy / SUT cores', 'pg xacts/call', 'redis trips/call (+in scripts)', 'lost/double/totals'];
  const failed: string[] = [];
  for (const r of rounds) {
    if (r.ok !== r.sent) failed.push(`round ${r.index + 1} (${r.replicas} replicas): ${r.sent - r.ok} errors (${errs(r.errors)})`);
    if (r.ledger.problems.length) failed.push(`round ${r.index + 1} (${r.replicas} replicas): ledger — ${r.ledger.problems.join('; ')}`);
  }
  if (o.load === 'scaled') failed.push(...scaleOutVerdicts(rounds, ratios));
  const text = `\n## Scale-out, ${loadText(o)} (open loop), ${rounds.length} rounds in the order ${rounds.map((r) => r.label.replace(' ', '')).join(', ')}; direct to the mock p50 ${f(direct.p50, 2)} ms\n\n${table(head, rows)}\n`;
  return { text, failed };
}

/** A main-series figure may exceed one replica's by this factor plus `slack` and still count as flat. */
const FLAT = { factor: 1.15, pgSlack: 0.02, redisSlack: 0.05 };

/**
 * The acceptance of a scale-out run (N replicas at N times one's rate): CPU per call within 1.15×
 * of one replica's (median over cycles), shared-state round trips per call flat, and no round
 * saturated (a saturated core batches more per wake-up and would flatter the CPU figure). A fixed
 * total rate puts each of N replicas at 1/N of the load, so its ratios are reported, not judged.
 */
export function scaleOutVerdicts(rounds: RoundResult[], ratios: ReturnType<typeof cycleRatios>): string[] {
  const failed: string[] = [];
  const med = (label: string, pick: (r: RoundResult) => number) => medianOf(rounds.filter((r) => r.label === label).map(pick));
  const base = { p50: med('1', (r) => r.latency.p50), pg: med('1', (r) => r.pgXactsPerCall), redis: med('1', (r) => r.redisPerCall) };
  for (const q of ratios) {
    if (!isCount(q.label) || q.replicas === 1) continue;
    const n = `${q.replicas} replicas`;
    if (!(q.median <= 1.15)) failed.push(`${n}: CPU per call ${f(q.median, 2)}× one replica's, median of ${q.perCycle.length} cycles (limit 1.15×)`);
    const pg = med(q.label, (r) => r.pgXactsPerCall);
    if (!(pg <= base.pg * FLAT.factor + FLAT.pgSlack)) failed.push(`${n}: ${f(pg, 3)} PostgreSQL transactions per call against one replica's ${f(base.pg, 3)} (not flat)`);
    const redis = med(q.label, (r) => r.redisPerCall);
    if (Number.isFinite(redis) && !(redis <= base.redis * FLAT.factor + FLAT.redisSlack)) failed.push(`${n}: ${f(redis, 2)} Redis round trips per call against one replica's ${f(base.redis, 2)} (not flat)`);
    const p50 = med(q.label, (r) => r.latency.p50);
    if (p50 > 2 * base.p50 + 2) failed.push(`${n}: p50 ${f(p50, 1)} ms against one replica's ${f(base.p50, 1)} ms: the cores are saturated and CPU per call is not comparable; lower --rate`);
  }
  return failed;
}
