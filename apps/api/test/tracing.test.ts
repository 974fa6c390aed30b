// OpenTelemetry per pipeline stage: with an OTLP endpoint configured, one completion is one
// span with an event per stage (its start and duration), in order, exported as OTLP/HTTP JSON to a collector on
// the loopback, with ids only (never the prompt). Both doors (the socket path and node:http)
// trace alike.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpCollector, type OtlpCollector, type OtlpSpan } from './support/otlp-collector.ts';
import { startRig, type Rig } from './support/vendor.ts';

const STAGES = ['idempotency', 'annotate', 'guard', 'capture', 'route', 'budget', 'cache', 'prune', 'dispatch', 'respond'];

async function until<T>(what: () => T | undefined, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = what();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('timed out waiting for the collector');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The call's span, by call id. */
function callSpan(spans: OtlpSpan[], callId: string): OtlpSpan | undefined {
  return spans.find((s) => s.name === 'chat.completion' && s.attributes['optimizer.call_id'] === callId);
}

describe.each(['on', 'off'])('with FAST_PATH=%s', (fastPath) => {
  let collector: OtlpCollector;
  let rig: Rig;
  beforeAll(async () => {
    collector = await startOtlpCollector();
    rig = await startRig({ env: { FAST_PATH: fastPath, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: '20', OTEL_SERVICE_NAME: 'gateway-under-test', UPSTREAM_MAX_RETRIES: '0', CIRCUIT_FAILURES: '1000' } });
  });
  afterAll(async () => {
    await rig.close();
    await collector.close();
  });

  it('exports one span per completion with an event per stage, in order, and ids only, never the prompt', async () => {
    const marker = `secret-marker-${fastPath}-7f3a9c`;
    const { data, response } = await rig.client.chat.completions
      .create({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: `Please keep ${marker} to yourself` }] })
      .withResponse();
    expect(data.choices[0]?.message.content).toBeTruthy();
    const callId = response.headers.get('x-optimizer-call-id') ?? data.id;

    const root = await until(() => callSpan(collector.spans(), callId));
    expect(root.events.map((e) => e.name)).toEqual(STAGES);
    const times = root.events.map((e) => BigInt(e.timeUnixNano));
    expect(times.every((t, i) => i === 0 || t >= times[i - 1]!)).toBe(true);
    expect(times[0]! >= BigInt(root.startTimeUnixNano)).toBe(true);
    for (const e of root.events) expect(e.attributes['optimizer.stage.duration_ms']).toBeGreaterThanOrEqual(0);
    expect(collector.spans().filter((s) => s.traceId === root.traceId)).toHaveLength(1); // no child spans
    expect(root.attributes).toMatchObject({
      'optimizer.call_id': callId,
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4.1-mini',
      'gen_ai.response.model': 'gpt-4.1-mini',
      'gen_ai.provider.name': 'openai',
      'http.response.status_code': 200,
      'optimizer.cache_hit': false,
      'optimizer.stream': false,
    });
    expect(collector.requests.every((r) => r === 'POST /v1/traces')).toBe(true);
    const all = collector.bodies.join('\n');
    expect(all).toContain('gateway-under-test'); // the resource's service.name
    expect(all).not.toContain(marker);
    expect(all).not.toContain(rig.tenant.api_key);
  });

  it('marks a failed call with its status, catalogue code and failing stage on the span, its stages still in order', async () => {
    await expect(rig.client.chat.completions.create({ model: 'error-5xx', messages: [{ role: 'user', content: 'hi' }] })).rejects.toThrow();
    const root = await until(() => collector.spans().find((s) => s.name === 'chat.completion' && s.attributes['gen_ai.request.model'] === 'error-5xx'));
    expect(root.attributes['http.response.status_code']).toBeGreaterThanOrEqual(400);
    expect(typeof root.attributes['error.type']).toBe('string');
    expect(root.attributes['optimizer.failed_stage']).toBe('dispatch');
    expect(root.events.map((e) => e.name)).toEqual(STAGES.slice(0, STAGES.indexOf('dispatch') + 1));
  });
});
