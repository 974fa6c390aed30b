// Turns phase results into readable tables (absolute numbers, added vs direct, gateway ÷ portkey)
// and the comparison block stored in the JSON result.
import type { LoadSpec, PhaseResult } from './phases.ts';
import { added, ratio } from './stats.ts';
import type { TargetName } from './targets.ts';

export interface Comparison {
  load: string;
  /** Per proxy: what it adds on top of `direct` (ms), and its CPU per request. */
  added: Record<string, { p50: number; p99: number; p999: number; ttfbP50: number; ttfbP99: number; throughputShare: number; cpuUsPerReq: number; servingUsPerReq: number }>;
  /** gateway ÷ portkey; below 1 means the gateway costs less. NaN when a side is missing or ≤ 0. */
  ratios: { addedP50: number; addedP99: number; addedP999: number; addedTtfbP50: number; addedTtfbP99: number; cpuPerReq: number; maxReqPerSec: number };
}

const PROXIES: TargetName[] = ['gateway', 'portkey', 'bare'];

export function compare(load: LoadSpec, rows: PhaseResult[]): Comparison {
  const by = (t: TargetName) => rows.find((r) => r.target === t);
  const direct = by('direct');
  const out: Comparison = {
    load: load.name,
    added: {},
    ratios: { addedP50: NaN, addedP99: NaN, addedP999: NaN, addedTtfbP50: NaN, addedTtfbP99: NaN, cpuPerReq: NaN, maxReqPerSec: NaN },
  };
  for (const t of PROXIES) {
    const r = by(t);
    if (!r) continue;
    out.added[t] = {
      p50: added(r.latency.p50, direct?.latency.p50),
      p99: added(r.latency.p99, direct?.latency.p99),
      p999: added(r.latency.p999, direct?.latency.p999),
      ttfbP50: added(r.ttfb?.p50, direct?.ttfb?.p50),
      ttfbP99: added(r.ttfb?.p99, direct?.ttfb?.p99),
      throughputShare: ratio(r.throughput, direct?.throughput),
      cpuUsPerReq: r.cpu.proxyUsPerReq ?? NaN,
      servingUsPerReq: r.cpu.servingUsPerReq ?? NaN,
    };
  }
  const g = out.added.gateway;
  const p = out.added.portkey;
  if (g && p) {
    out.ratios = {
      addedP50: ratio(g.p50, p.p50),
      addedP99: ratio(g.p99, p.p99),
      addedP999: ratio(g.p999, p.p999),
      addedTtfbP50: ratio(g.ttfbP50, p.ttfbP50),
      addedTtfbP99: ratio(g.ttfbP99, p.ttfbP99),
      cpuPerReq: ratio(g.cpuUsPerReq, p.cpuUsPerReq),
      maxReqPerSec: ratio(by('gateway')?.throughput, by('portkey')?.throughput),
    };
  }
  return out;
}

// ---- formatting ----

const ms = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(v >= 100 ? 0 : 2));
const plusMs = (v: number) => (Number.isFinite(v) ? `${v >= 0 ? '+' : ''}${ms(v)}` : '–');
const int = (v: number | null | undefined) => (v === null || v === undefined || !Number.isFinite(v) ? '–' : Math.round(v).toLocaleString('en-US'));
const pct = (v: number | null | undefined) => (v === null || v === undefined || !Number.isFinite(v) ? '–' : `${Math.round(v * 100)}%`);
const cores = (v: number | null) => (v === null || !Number.isFinite(v) ? '–' : v.toFixed(2));
const times = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)}×` : '–');

export function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function errorText(r: PhaseResult): string {
  const entries = Object.entries(r.errors);
  return entries.length === 0 ? '0' : entries.map(([k, v]) => `${v} ${k}`).join(', ');
}

function describe(load: LoadSpec): string {
  const secs = `${(load.durationMs / 1000).toFixed(load.durationMs < 10_000 ? 1 : 0)} s`;
  const shape = load.kind === 'closed' ? `closed loop, ${load.concurrency} in flight` : `open loop, ${load.ratePerSec} req/s`;
  return `${load.title} — ${shape}, ${secs} per target`;
}

export function renderLoad(load: LoadSpec, rows: PhaseResult[], cmp: Comparison): string {
  const out: string[] = [`\n## ${describe(load)}\n`];
  const streaming = load.stream;
  const open = load.kind === 'open';
  const head = ['target', 'ok', 'req/s', 'p50 ms', 'p99 ms'];
  if (open) head.push('p99.9 ms');
  if (streaming) head.push('ttfb p50', 'ttfb p99');
  head.push('proxy µs/req', 'serving µs/req', 'mock µs/req', 'proxy cores', 'mock cores', 'other cores', 'client cores', 'errors');
  const body = rows.map((r) => {
    const cells = [r.target, int(r.ok), int(r.throughput), ms(r.latency.p50), ms(r.latency.p99)];
    if (open) cells.push(ms(r.latency.p999));
    if (streaming) cells.push(ms(r.ttfb?.p50), ms(r.ttfb?.p99));
    cells.push(int(r.cpu.proxyUsPerReq), int(r.cpu.servingUsPerReq), int(r.cpu.mockUsPerReq), cores(r.cpu.proxyCores), cores(r.cpu.mockCores));
    cells.push(cores(r.cpu.otherCores), cores(r.cpu.clientCores), errorText(r));
    return cells;
  });
  out.push(table(head, body));
  const noisy = rows.filter((r) => (r.cpu.otherCores ?? 0) > 0.1);
  if (noisy.length > 0) {
    const who = noisy.map((r) => `${r.target} ${cores(r.cpu.otherCores)}`).join(', ');
    out.push(`warning: other programs used the servers' core during ${who} (cores' worth, "other cores"); those rows are noisy`);
  }
  if (open) {
    const lag = rows.map((r) => `${r.target} ${ms(r.sendLag?.p99)} ms`).join(', ');
    out.push(`send lag p99 (generator lateness vs schedule, included in latency): ${lag}`);
  }
  const proxies = PROXIES.filter((t) => cmp.added[t]);
  if (proxies.length > 0 && rows.some((r) => r.target === 'direct')) {
    const addHead = ['added vs direct', '+p50 ms', '+p99 ms'];
    if (open) addHead.push('+p99.9 ms');
    if (streaming) addHead.push('+ttfb p50', '+ttfb p99');
    addHead.push('req/s vs direct', 'CPU µs/req', 'serving µs/req');
    const addRows = proxies.map((t) => {
      const a = cmp.added[t]!;
      const cells = [t, plusMs(a.p50), plusMs(a.p99)];
      if (open) cells.push(plusMs(a.p999));
      if (streaming) cells.push(plusMs(a.ttfbP50), plusMs(a.ttfbP99));
      cells.push(pct(a.throughputShare), int(a.cpuUsPerReq), int(a.servingUsPerReq));
      return cells;
    });
    out.push('', table(addHead, addRows));
  }
  if (cmp.added.gateway && cmp.added.portkey) {
    const r = cmp.ratios;
    const parts = [`added p50 ${times(r.addedP50)}`, `added p99 ${times(r.addedP99)}`];
    if (open) parts.push(`added p99.9 ${times(r.addedP999)}`);
    if (streaming) parts.push(`added ttfb p50 ${times(r.addedTtfbP50)}`, `added ttfb p99 ${times(r.addedTtfbP99)}`);
    parts.push(`CPU/req ${times(r.cpuPerReq)}`, `req/s ${times(r.maxReqPerSec)}`);
    out.push('', `gateway ÷ portkey (below 1× = gateway cheaper/faster, except req/s where above 1× is better): ${parts.join(' · ')}`);
  }
  return out.join('\n');
}

export function renderHeadline(loads: LoadSpec[], comparisons: Comparison[]): string {
  const get = (name: string) => comparisons.find((c) => c.load === name);
  const lines: string[] = ['\n## Headline (what each proxy adds on top of calling the mock directly)\n'];
  const rows: string[][] = [];
  for (const t of PROXIES) {
    const open = get('open')?.added[t];
    const closed = get('closed')?.added[t];
    const stream = get('stream')?.added[t];
    if (!open && !closed && !stream) continue;
    rows.push([
      t,
      plusMs(open?.p50 ?? NaN),
      plusMs(open?.p99 ?? NaN),
      plusMs(stream?.ttfbP50 ?? NaN),
      plusMs(stream?.ttfbP99 ?? NaN),
      int(open?.cpuUsPerReq),
      int(open?.servingUsPerReq),
      int(closed?.cpuUsPerReq),
      int(closed?.servingUsPerReq),
      pct(closed?.throughputShare),
    ]);
  }
  const rate = loads.find((l) => l.name === 'open')?.ratePerSec;
  lines.push(
    table(
      ['proxy', `+p50 @${rate}/s`, `+p99 @${rate}/s`, '+ttfb p50', '+ttfb p99', 'CPU µs/req (open)', 'serving thread (open)', 'CPU µs/req (closed)', 'serving thread (closed)', 'max req/s vs direct'],
      rows,
    ),
  );
  const o = get('open')?.ratios;
  const c = get('closed')?.ratios;
  const s = get('stream')?.ratios;
  if (o && c && s && get('open')?.added.gateway && get('open')?.added.portkey) {
    lines.push(
      '',
      `gateway ÷ portkey: added p50 ${times(o.addedP50)}, added p99 ${times(o.addedP99)}, added ttfb p50 ${times(s.addedTtfbP50)}, ` +
        `CPU/req ${times(o.cpuPerReq)} (open) / ${times(c.cpuPerReq)} (closed), max req/s ${times(c.maxReqPerSec)}`,
    );
  }
  const gb = (name: string) => {
    const a = get(name)?.added;
    return a?.gateway && a.bare ? ratio(a.gateway.cpuUsPerReq, a.bare.cpuUsPerReq) : NaN;
  };
  if (Number.isFinite(gb('open')) || Number.isFinite(gb('closed'))) {
    lines.push('', `gateway ÷ bare node:http proxy (the floor on this machine): CPU/req ${times(gb('open'))} (open) / ${times(gb('closed'))} (closed)`);
  }
  return lines.join('\n');
}
