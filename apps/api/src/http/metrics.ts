// A small Prometheus registry: counters and histograms rendered as text exposition.

type Labels = Record<string, string>;

function labelKey(labels: Labels): string {
  const parts = Object.keys(labels)
    .sort()
    .map((k) => `${k}="${String(labels[k]).replace(/["\\\n]/g, '_')}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
}

class Counter {
  readonly values = new Map<string, number>();
  readonly #routeKeys = new Map<string, string>();
  readonly name: string;
  readonly help: string;
  constructor(name: string, help: string) {
    this.name = name;
    this.help = help;
  }
  inc(labels: Labels = {}, by = 1): void {
    const k = labelKey(labels);
    this.values.set(k, (this.values.get(k) ?? 0) + by);
  }
  /** The hot-path form for {route, status}: the label string is built once per pair. */
  incRoute(route: string, status: number): void {
    const pair = `${route} ${status}`;
    let k = this.#routeKeys.get(pair);
    if (k === undefined) this.#routeKeys.set(pair, (k = labelKey({ route, status: String(status) })));
    this.values.set(k, (this.values.get(k) ?? 0) + 1);
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const [k, v] of this.values) lines.push(`${this.name}${k} ${v}`);
    return lines.join('\n');
  }
}

class Histogram {
  readonly series = new Map<string, { counts: number[]; sum: number; count: number; labels: Labels }>();
  readonly name: string;
  readonly help: string;
  readonly buckets: number[];
  constructor(name: string, help: string, buckets: number[]) {
    this.name = name;
    this.help = help;
    this.buckets = buckets;
  }
  observe(value: number, labels: Labels = {}): void {
    const k = labelKey(labels);
    let s = this.series.get(k);
    if (!s) this.series.set(k, (s = { counts: this.buckets.map(() => 0), sum: 0, count: 0, labels }));
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]!) s.counts[i]!++;
    s.sum += value;
    s.count++;
  }
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const s of this.series.values()) {
      this.buckets.forEach((b, i) => lines.push(`${this.name}_bucket${labelKey({ ...s.labels, le: String(b) })} ${s.counts[i]}`));
      lines.push(`${this.name}_bucket${labelKey({ ...s.labels, le: '+Inf' })} ${s.count}`);
      lines.push(`${this.name}_sum${labelKey(s.labels)} ${s.sum}`, `${this.name}_count${labelKey(s.labels)} ${s.count}`);
    }
    return lines.join('\n');
  }
}

export class Metrics {
  readonly requests = new Counter('optimizer_http_requests_total', 'HTTP requests by route and status.');
  readonly completions = new Counter('optimizer_completions_total', 'Completions by provider, model and outcome.');
  readonly overhead = new Histogram('optimizer_overhead_ms', "The gateway's own time per completion, in ms.", [0.1, 0.25, 0.5, 1, 2, 5, 10, 50]);
  readonly upstream = new Histogram('optimizer_upstream_ms', 'Upstream latency per dispatch, in ms.', [50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000]);
  readonly meterPending = { value: 0 };

  render(): string {
    const gauge = `# HELP optimizer_meter_pending Call records waiting to be written.\n# TYPE optimizer_meter_pending gauge\noptimizer_meter_pending ${this.meterPending.value}`;
    return [this.requests, this.completions, this.overhead, this.upstream].map((m) => m.render()).join('\n') + '\n' + gauge + '\n';
  }
}
