// What tracing a completion costs in CPU, per call: the gateway's own per-stage tracing
// (apps/api/src/telemetry/otel.ts: one span with an event per stage) against a root span with a
// child span per stage, both exported as OTLP/HTTP JSON to a collector on the loopback
// (in this process, so its reading counts too), and against tracing off (a null check).
//
//   node bench/otel/spans.ts [--calls 20000] [--rounds 5]
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { ROOT_CONTEXT, SpanKind, trace, type Span } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { createOtelTracing } from '../../apps/api/src/telemetry/otel.ts';
import type { CallContext } from '../../apps/api/src/pipeline/context.ts';
import type { StageName, Tracing } from '../../apps/api/src/telemetry/tracing.ts';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '20000' }, rounds: { type: 'string', default: '5' } } });
const calls = Number(values.calls);
const rounds = Number(values.rounds);
const STAGES: StageName[] = ['idempotency', 'annotate', 'guard', 'capture', 'route', 'budget', 'cache', 'prune', 'dispatch', 'respond'];

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
const options = { url, headers: {}, serviceName: 'bench', scheduleDelayMs: 200, timeoutMs: 10_000 };

const ctx = {
  id: 'call_0123456789abcdef',
  requestedModel: 'gpt-4.1-mini',
  served: { provider: 'openai', model: 'gpt-4.1-mini' },
  route: null,
  optimizer: null,
  cacheHit: null,
  stream: false,
} as unknown as CallContext;

/** A root span and a child span per stage: the alternative to events. */
function childSpansTracing(): Tracing {
  const exporter = new OTLPTraceExporter({ url });
  const provider = new TracerProvider({ resource: resourceFromAttributes({ 'service.name': 'bench' }), spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: 200 })] });
  const tracer = provider.getTracer('bench');
  return {
    begin() {
      const root = tracer.startSpan('chat.completion', { kind: SpanKind.SERVER }, ROOT_CONTEXT);
      const parent = trace.setSpan(ROOT_CONTEXT, root);
      let stage: Span | null = null;
      return {
        call() {},
        replayed() {},
        stage(name: StageName) {
          stage?.end();
          stage = tracer.startSpan(name, undefined, parent);
        },
        end(status = 200) {
          stage?.end();
          root.setAttributes({ 'optimizer.call_id': ctx.id, 'gen_ai.request.model': ctx.requestedModel, 'gen_ai.provider.name': 'openai', 'http.response.status_code': status, 'optimizer.cache_hit': false });
          root.end();
        },
      };
    },
    shutdown: () => provider.shutdown(),
  };
}

/** `calls` calls, yielding every 20 so the batch processor exports as it would under traffic (its queue holds 2048 spans; a burst past it would drop spans and look cheap). */
async function run(tracing: Tracing | null): Promise<void> {
  for (let i = 0; i < calls; i++) {
    const t = tracing === null ? null : tracing.begin();
    t?.call(ctx);
    for (const s of STAGES) t?.stage(s);
    t?.end();
    if (i % 20 === 19) await new Promise((r) => setImmediate(r));
  }
}

async function measure(make: () => Tracing | null): Promise<number> {
  const tracing = make();
  await run(tracing); // warm-up
  const t0 = process.cpuUsage();
  await run(tracing);
  await tracing?.shutdown(); // the export's serialization and sending count
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / calls;
}

const results: Record<string, number[]> = { off: [], events: [], spans: [] };
for (let r = 0; r < rounds; r++) {
  results.off!.push(await measure(() => null));
  results.events!.push(await measure(() => createOtelTracing(options)));
  results.spans!.push(await measure(childSpansTracing));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const m = { off: median(results.off!), spans: median(results.spans!), events: median(results.events!) };
console.log(`CPU per traced call (µs, median of ${rounds} rounds of ${calls}, export included):`);
console.log(`  off (null check)       ${m.off.toFixed(3)}`);
console.log(`  one span + 10 events   ${m.events.toFixed(1)}   (the gateway's)`);
console.log(`  child span per stage   ${m.spans.toFixed(1)}`);
console.log(`  spans / events ratio   ${(m.spans / m.events).toFixed(2)}`);
server.close();
