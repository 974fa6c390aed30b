// Whether the gateway traces, and where to: decided once at boot from the validated config,
// by the OpenTelemetry SDK's environment conventions. Off unless an OTLP endpoint is set;
// OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none turns it off all the same.
import type { Config } from '../config.ts';
import type { OtelOptions } from './otel.ts';

/** The exporter's options, or null: no tracing at all. */
export function otelOptions(c: Config): OtelOptions | null {
  if (c.OTEL_SDK_DISABLED || c.OTEL_TRACES_EXPORTER === 'none') return null;
  const url = c.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (c.OTEL_EXPORTER_OTLP_ENDPOINT === undefined ? undefined : `${c.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`);
  if (url === undefined) return null;
  return {
    url,
    headers: c.OTEL_EXPORTER_OTLP_HEADERS ?? {},
    serviceName: c.OTEL_SERVICE_NAME,
    scheduleDelayMs: c.OTEL_BSP_SCHEDULE_DELAY,
    timeoutMs: c.OTEL_EXPORTER_OTLP_TIMEOUT,
  };
}
