// A local OTLP/HTTP collector for tests: accepts POST /v1/traces with JSON bodies on the
// loopback and keeps each body's text (to search for what must never be exported) and its spans.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  attributes: Record<string, string | number | boolean>;
  events: { name: string; timeUnixNano: string; attributes: Record<string, string | number | boolean> }[];
}

export interface OtlpCollector {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  /** Every body received, as text. */
  bodies: string[];
  /** Every request received (method and path). */
  requests: string[];
  spans(): OtlpSpan[];
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };

function value(v: AnyValue): string | number | boolean {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.boolValue !== undefined) return v.boolValue;
  return v.doubleValue ?? '';
}

type Attr = { key: string; value: AnyValue };

function attrs(list: Attr[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, value(a.value)]));
}

export async function startOtlpCollector(): Promise<OtlpCollector> {
  const bodies: string[] = [];
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    requests,
    spans() {
      const out: OtlpSpan[] = [];
      for (const b of bodies) {
        const doc = JSON.parse(b) as { resourceSpans?: { scopeSpans?: { spans?: (Omit<OtlpSpan, 'attributes' | 'events'> & { attributes?: Attr[]; events?: { name: string; timeUnixNano: string; attributes?: Attr[] }[] })[] }[] }[] };
        for (const rs of doc.resourceSpans ?? [])
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? []) out.push({ ...s, attributes: attrs(s.attributes), events: (s.events ?? []).map((e) => ({ ...e, attributes: attrs(e.attributes) })) });
      }
      return out;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
