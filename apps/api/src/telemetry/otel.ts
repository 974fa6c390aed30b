// OpenTelemetry for the completion pipeline: one span per call with a span event per stage (its
// start, and its duration as an attribute), exported over OTLP/HTTP (JSON) in batches. Events,
// not child spans: child spans cost about four times as much CPU per call (bench/otel/spans.ts,
// docs/decisions.md "Tracing"). Imported only when OTEL export is configured
// (services.ts), so a gateway without it loads no SDK and registers no tracer provider. The
// provider is the gateway's own, never the global one: nothing else in the process traces
// through it, and several gateways in one process (the tests) keep theirs apart.
// Attributes are ids the tenant may see and operators need: call id, step, models, provider,
// status, cache hit, an error's catalogue code. Never a prompt, an answer, a key or an account secret.
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, type Span, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { CallTrace, StageName, TracedCall, Tracing } from './tracing.ts';

export interface OtelOptions {
  /** The full URL spans are POSTed to (…/v1/traces). */
  url: string;
  headers: Record<string, string>;
  serviceName: string;
  /** The batch processor's delay between exports (OTEL_BSP_SCHEDULE_DELAY). */
  scheduleDelayMs: number;
  /** One export's limit (OTEL_EXPORTER_OTLP_TIMEOUT). */
  timeoutMs: number;
}

class OtelCallTrace implements CallTrace {
  readonly #root: Span;
  /** Each stage's name and start (performance.now()), made events at the end with their durations. */
  readonly #stages: StageName[] = [];
  readonly #starts: number[] = [];
  #ctx: TracedCall | null = null;
  #status = 200;

  constructor(tracer: Tracer) {
    this.#root = tracer.startSpan('chat.completion', { kind: SpanKind.SERVER, attributes: { 'gen_ai.operation.name': 'chat' } }, ROOT_CONTEXT);
  }

  call(ctx: TracedCall): void {
    this.#ctx = ctx;
  }

  stage(name: StageName): void {
    this.#stages.push(name);
    this.#starts.push(performance.now());
  }

  replayed(status: number): void {
    this.#status = status;
    this.#root.setAttribute('optimizer.idempotent_replay', true);
  }

  end(status = this.#status, errorCode?: string): void {
    const root = this.#root;
    const ctx = this.#ctx;
    const now = performance.now();
    const n = this.#stages.length;
    for (let i = 0; i < n; i++) {
      const start = this.#starts[i]!;
      const duration = (i + 1 < n ? this.#starts[i + 1]! : now) - start;
      root.addEvent(this.#stages[i]!, { 'optimizer.stage.duration_ms': Math.round(duration * 1000) / 1000 }, start);
    }
    if (errorCode !== undefined) {
      root.setStatus({ code: SpanStatusCode.ERROR });
      root.setAttribute('error.type', errorCode);
      if (n > 0) root.setAttribute('optimizer.failed_stage', this.#stages[n - 1]!);
    }
    root.setAttribute('http.response.status_code', status);
    if (ctx !== null) {
      root.setAttribute('optimizer.call_id', ctx.id);
      if (ctx.requestedModel !== '') root.setAttribute('gen_ai.request.model', ctx.requestedModel);
      const provider = ctx.served?.provider ?? ctx.route?.provider;
      if (provider !== undefined) root.setAttribute('gen_ai.provider.name', provider);
      const served = ctx.served?.model ?? ctx.route?.model;
      if (served !== undefined) root.setAttribute('gen_ai.response.model', served);
      if (ctx.optimizer) root.setAttribute('optimizer.step', ctx.optimizer.step);
      root.setAttribute('optimizer.cache_hit', ctx.cacheHit !== null);
      root.setAttribute('optimizer.stream', ctx.stream);
    }
    root.end();
  }
}

export function createOtelTracing(o: OtelOptions): Tracing {
  const exporter = new OTLPTraceExporter({ url: o.url, headers: o.headers, timeoutMillis: o.timeoutMs });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': o.serviceName }),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: o.scheduleDelayMs, exportTimeoutMillis: o.timeoutMs })],
  });
  const tracer = provider.getTracer('llm-optimizer.pipeline');
  return {
    begin: () => new OtelCallTrace(tracer),
    shutdown: () => provider.shutdown(),
  };
}
