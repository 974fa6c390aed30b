// OpenTelemetry is off by default: without an OTLP endpoint (or with OTEL_SDK_DISABLED=true)
// the gateway builds no tracer, registers no tracer provider and sends nothing; the settings
// are checked at boot by the SDK's own variable names.
import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { otelOptions } from '../src/telemetry/settings.ts';
import { startOtlpCollector, type OtlpCollector } from './support/otlp-collector.ts';
import { startRig } from './support/vendor.ts';

let collector: OtlpCollector;
beforeAll(async () => {
  collector = await startOtlpCollector();
});
afterAll(async () => {
  await collector.close();
});

describe.each([
  ['unset', {}],
  ['disabled', { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'collector' }],
  ['exporter none', { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'collector' }],
])('with OpenTelemetry %s', (_, settings: Record<string, string>) => {
  it('sends nothing and registers no tracer provider, through either door', async () => {
    const env = Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, v === 'collector' ? collector.url : v]));
    for (const fastPath of ['on', 'off']) {
      const rig = await startRig({ env: { ...env, FAST_PATH: fastPath, OTEL_BSP_SCHEDULE_DELAY: '10', OTEL_SERVICE_NAME: 'gateway-under-test' } });
      try {
        expect(rig.gw.services.tracing).toBeNull();
        const r = await rig.client.chat.completions.create({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'hello' }] });
        expect(r.choices[0]?.message.content).toBeTruthy();
        await new Promise((resolve) => setTimeout(resolve, 100));
      } finally {
        await rig.close();
      }
    }
    expect(collector.requests).toEqual([]);
    // the process-wide API still has only its no-op provider: a span from it records nothing
    const probe = trace.getTracer('probe').startSpan('probe');
    expect(probe.isRecording()).toBe(false);
    probe.end();
  });
});

describe('OpenTelemetry settings at boot', () => {
  it('appends /v1/traces to the base endpoint and prefers the traces endpoint as given', () => {
    expect(otelOptions(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/' }))?.url).toBe('http://127.0.0.1:4318/v1/traces');
    const both = loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:9999/custom' });
    expect(otelOptions(both)?.url).toBe('http://127.0.0.1:9999/custom');
    expect(otelOptions(loadConfig({}))).toBeNull();
  });

  it('parses the exporter headers the spec way and never echoes them in a boot error', () => {
    const c = loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_EXPORTER_OTLP_HEADERS: 'api-key=abc%20def, X-Team=ops' });
    expect(otelOptions(c)?.headers).toEqual({ 'api-key': 'abc def', 'x-team': 'ops' });
    let message = '';
    try {
      loadConfig({ OTEL_EXPORTER_OTLP_HEADERS: 'no-equals-sign-topsecret' });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      message = (err as Error).message;
    }
    expect(message).toContain('OTEL_EXPORTER_OTLP_HEADERS');
    expect(message).not.toContain('topsecret');
  });

  it('refuses a protocol it does not speak and an otlp exporter with nowhere to send', () => {
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL.*http\/json/s);
    expect(() => loadConfig({ OTEL_TRACES_EXPORTER: 'otlp' })).toThrow(/OTEL_TRACES_EXPORTER.*OTEL_EXPORTER_OTLP_ENDPOINT/s);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://x' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
  });
});
