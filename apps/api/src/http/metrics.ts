// The gateway's Prometheus metrics on prom-client: one registry per gateway (tests run several
// in one process), the runtime's default process metrics, requests by route and status, and
// what the meter records: calls, the gateway's own time, each vendor attempt's latency and
// errors. Observing from the meter's rows keeps the completion path free of metric calls.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { LearningStats } from '../pipeline/learning-queue.ts';
import type { MeterBatch } from '../meter/rows.ts';

/** The child of `metric` for two label values, made once per pair. */
function child<C>(cache: Map<string, C>, metric: { labels(a: string, b: string): C }, a: string, b: string): C {
  const key = `${a}\u0000${b}`;
  let c = cache.get(key);
  if (c === undefined) cache.set(key, (c = metric.labels(a, b)));
  return c;
}

/** How often the default metrics' event-loop lag monitor samples the loop. */
export const LOOP_LAG_SAMPLE_MS = 100;

export class Metrics {
  readonly registry = new Registry();
  readonly #requests = new Counter({ name: 'optimizer_http_requests_total', help: 'HTTP requests by route and status.', labelNames: ['route', 'status'] as const, registers: [this.registry] });
  /** The hot path's children of #requests, one per (route, status): no label hashing per request. */
  readonly #routeChildren = new Map<string, { inc(): void }>();
  /** The same for what the meter observes (prom-client hashes its labels on every `labels()`). */
  readonly #callChildren = new Map<string, { inc(): void }>();
  readonly #upstreamChildren = new Map<string, { observe(v: number): void }>();
  readonly #errorChildren = new Map<string, { inc(): void }>();
  readonly #calls = new Counter({
    name: 'optimizer_completions_total',
    help: 'Metered calls by status class and whether a cache answered.',
    labelNames: ['status', 'cache'] as const,
    registers: [this.registry],
  });
  readonly #overhead = new Histogram({
    name: 'optimizer_overhead_ms',
    help: "The gateway's own time per metered call (latency minus time waiting on vendors), in ms.",
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 50],
    registers: [this.registry],
  });
  readonly #upstream = new Histogram({
    name: 'optimizer_upstream_ms',
    help: 'Latency of each vendor attempt, by provider and outcome, in ms.',
    labelNames: ['provider', 'outcome'] as const,
    buckets: [50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000],
    registers: [this.registry],
  });
  readonly #meterQuarantined = new Counter({
    name: 'optimizer_meter_quarantined_rows_total',
    help: 'Metering rows the database refused for what they hold, set aside in the quarantine (GET /v1/admin/meter/quarantine) so the rest of their batch was written.',
    registers: [this.registry],
  });
  readonly #vendorErrors = new Counter({
    name: 'optimizer_vendor_errors_total',
    help: 'Vendor attempts that failed, by provider and the vendor status (none: no answer).',
    labelNames: ['provider', 'status'] as const,
    registers: [this.registry],
  });

  constructor(gauges: { meterPending: () => number; learning?: () => LearningStats }) {
    // The event-loop lag histogram samples the loop with a timer; prom-client's default (every
    // 10 ms) wakes an idle replica 100 times a second, which cost 10–15 ms of CPU a second per
    // replica (bench/scale). Ten samples a second still give a scrape's percentiles.
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: LOOP_LAG_SAMPLE_MS });
    new Gauge({
      name: 'optimizer_meter_pending',
      help: 'Call records waiting to be written to the database.',
      registers: [this.registry],
      collect() {
        this.set(gauges.meterPending());
      },
    });
    const learning = gauges.learning;
    if (!learning) return;
    // routed calls' learning after their answers (pipeline/learning-queue.ts): a rising `dropped` means the queue is too small for the traffic
    for (const [name, help, read] of [
      ['optimizer_learning_queued', 'Routed calls whose learning waits in the queue.', (x: LearningStats) => x.queued],
      ['optimizer_learning_running', 'Routed calls whose learning runs now.', (x: LearningStats) => x.running],
      ['optimizer_learning_dropped', 'Learning jobs dropped since start (queue full, or shut down before they ran).', (x: LearningStats) => x.dropped],
    ] as const) {
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          this.set(read(learning()));
        },
      });
    }
  }

  /** One request answered on `route` with `status` (both servers call it as a response finishes). */
  incRoute(route: string, status: number): void {
    child(this.#routeChildren, this.#requests, route, String(status)).inc();
  }

  /** What one metered call recorded (the meter calls this with each batch it takes). */
  observe(batch: MeterBatch): void {
    for (const c of batch.calls) {
      child(this.#callChildren, this.#calls, `${Math.floor(c.status / 100)}xx`, c.cache_hit ? 'hit' : 'miss').inc();
      this.#overhead.observe(c.overhead_ms);
    }
    for (const a of batch.activity) {
      child(this.#upstreamChildren, this.#upstream, a.provider, a.outcome).observe(a.latency_ms);
      if (a.outcome === 'error') child(this.#errorChildren, this.#vendorErrors, a.provider, a.status === null ? 'none' : String(a.status)).inc();
    }
  }

  /** Rows the meter newly quarantined. */
  meterQuarantined(rows: number): void {
    this.#meterQuarantined.inc(rows);
  }

  /** The exposition text, with `extra` series appended (text the registry does not hold). */
  async render(extra = ''): Promise<string> {
    return (await this.registry.metrics()) + extra;
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
