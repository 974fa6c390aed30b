// /metrics on prom-client: the runtime's process metrics, and what the meter records per call
// (status class, cache, the gateway's own time) and per vendor attempt (latency, errors).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startRig, type Rig } from './support/vendor.ts';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig({ env: { CIRCUIT_FAILURES: '1000' } });
});
afterAll(async () => {
  await rig.close();
});

async function metrics(): Promise<{ type: string | null; text: string }> {
  const r = await fetch(`${rig.gw.url}/metrics`);
  return { type: r.headers.get('content-type'), text: await r.text() };
}

/** The value of one series (exact name and labels), or undefined. */
function series(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

it('exposes process metrics and counts completions, vendor latency and vendor errors from the meter', async () => {
  await rig.client.chat.completions.create({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'hello' }] });
  await rig.client.chat.completions.create({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'again' }] });
  await expect(rig.client.chat.completions.create({ model: 'error-5xx', messages: [{ role: 'user', content: 'x' }] })).rejects.toThrow();

  const { type, text } = await metrics();
  expect(type).toContain('text/plain');
  // the runtime's defaults
  expect(series(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
  expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
  expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
  // what the meter recorded
  expect(series(text, 'optimizer_completions_total{status="2xx",cache="miss"}')).toBe(2);
  expect(series(text, 'optimizer_completions_total{status="5xx",cache="miss"}')).toBeGreaterThanOrEqual(1);
  expect(series(text, 'optimizer_overhead_ms_count')).toBeGreaterThanOrEqual(3);
  expect(series(text, 'optimizer_upstream_ms_count{provider="openai",outcome="ok"}')).toBe(2);
  expect(series(text, 'optimizer_vendor_errors_total{provider="openai",status="500"}')).toBeGreaterThanOrEqual(1);
  expect(series(text, 'optimizer_http_requests_total{route="/v1/chat/completions",status="200"}')).toBe(2);
  expect(text).toMatch(/^optimizer_meter_pending \d+$/m);
  expect(text).toMatch(/^optimizer_learning_queued \d+$/m);
  expect(text).toMatch(/^optimizer_learning_running \d+$/m);
  expect(text).toMatch(/^optimizer_learning_dropped \d+$/m);
  expect(text).toMatch(/^optimizer_semantic_cache_embedder\{/m);
});
