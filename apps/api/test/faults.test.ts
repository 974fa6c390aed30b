// Vendor faults surface in the OpenAI error envelope with the right status, and
// every call is metered for what it really cost.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { authed } from './support/gateway.ts';
import { callRecords, startRig, type Rig } from './support/vendor.ts';

let rig: Rig;
beforeAll(async () => {
  // the circuit breaker would open after a few of these deliberate faults; it has its own test
  rig = await startRig({ env: { UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '600', UPSTREAM_IDLE_TIMEOUT_MS: '600', CIRCUIT_FAILURES: '1000' } });
});
afterAll(async () => {
  await rig.close();
});
beforeEach(() => rig.vendor.reset());

type Envelope = { error: { message: string; type: string; code: string; param: string | null } };

function complete(model: string, extra: Record<string, unknown> = {}) {
  return fetch(`${rig.gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: authed(rig.tenant.api_key),
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'one two three four five' }], ...extra }),
  });
}

async function lastRecord() {
  const [rec] = await callRecords(rig.gw, rig.tenant.account_id);
  return rec!;
}

describe('vendor faults before the first byte', () => {
  it('maps a vendor 5xx to 502 upstream_error and meters the failed call at zero cost', async () => {
    const r = await complete('error-5xx');
    expect(r.status).toBe(502);
    const b = (await r.json()) as Envelope;
    expect(b.error).toMatchObject({ code: 'upstream_error', type: 'upstream_error' });
    expect(b.error.message).toContain('openai');
    expect(await lastRecord()).toMatchObject({ status: 502, error_code: 'upstream_error', vendor_status: 500, actual_micros: '0' });
  });

  it('passes 429 through with the vendor Retry-After', async () => {
    const r = await complete('rate-limited');
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('1');
    expect(((await r.json()) as Envelope).error.code).toBe('upstream_rate_limited');
    expect(await lastRecord()).toMatchObject({ status: 429, vendor_status: 429 });
  });

  it('answers 504 when the vendor sends no first byte in time', async () => {
    const r = await complete('slow');
    expect(r.status).toBe(504);
    expect(((await r.json()) as Envelope).error.code).toBe('upstream_timeout');
    expect(await lastRecord()).toMatchObject({ status: 504, error_code: 'upstream_timeout' });
  });

  it('answers 502 when the vendor drops the connection', async () => {
    const r = await complete('reset-mid-stream');
    expect(r.status).toBe(502);
    expect(((await r.json()) as Envelope).error.code).toBe('upstream_error');
  });

  it('answers 401 with the vendor message when the vendor refuses the provider key', async () => {
    const r = await fetch(`${rig.gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: authed(rig.tenant.api_key, { 'x-provider-key': 'sk-wrong' }),
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(r.status).toBe(401);
    const b = (await r.json()) as Envelope;
    expect(b.error.code).toBe('upstream_auth');
    expect(JSON.stringify(b)).not.toContain('sk-wrong');
  });
});

describe('vendor faults inside a stream', () => {
  async function streamText(model: string) {
    const r = await complete(model, { stream: true });
    expect(r.status).toBe(200);
    return r.text();
  }

  it('ends a stream the vendor resets with an error event, never a silent truncation, and bills what was delivered', async () => {
    const text = await streamText('reset-mid-stream');
    expect(text).not.toContain('[DONE]');
    expect(text).toMatch(/data: \{"error":\{[^\n]*"code":"upstream_error"/);
    const rec = await lastRecord();
    expect(rec).toMatchObject({ status: 502, usage_estimated: true });
    expect(rec.prompt_tokens).toBeGreaterThan(0);
  });

  it('ends a stalled stream with a timeout error event', async () => {
    const text = await streamText('stall');
    expect(text).toMatch(/data: \{"error":\{[^\n]*"code":"upstream_timeout"/);
    expect(await lastRecord()).toMatchObject({ status: 504, error_code: 'upstream_timeout' });
  });

  it('passes on an error the vendor sends inside a 200 stream and meters the call as failed', async () => {
    const text = await streamText('error-in-stream');
    expect(text).toMatch(/data: \{"error":/);
    expect(text).not.toContain('[DONE]');
    expect(await lastRecord()).toMatchObject({ status: 502, error_code: 'upstream_stream_error' });
  });
});

describe('a client that goes away mid-stream', () => {
  it('cancels the upstream call and meters what was delivered', async () => {
    const slowRig = await startRig({ vendorOptions: { chunkDelayMs: 200 } });
    try {
      const ac = new AbortController();
      const r = await fetch(`${slowRig.gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: authed(slowRig.tenant.api_key),
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'a long answer please with many words in it' }], stream: true }),
        signal: ac.signal,
      });
      const reader = r.body!.getReader();
      await reader.read();
      await reader.read();
      ac.abort();
      let rec: Record<string, any> | undefined;
      for (let i = 0; i < 50 && !rec; i++) {
        await new Promise((res) => setTimeout(res, 100));
        [rec] = await callRecords(slowRig.gw, slowRig.tenant.account_id);
      }
      expect(rec).toMatchObject({ status: 499, error_code: 'client_closed_request', usage_estimated: true });
      expect(rec!.prompt_tokens).toBeGreaterThan(0);
      for (let i = 0; i < 30 && slowRig.vendor.aborted === 0; i++) await new Promise((res) => setTimeout(res, 50));
      expect(slowRig.vendor.aborted).toBe(1);
    } finally {
      await slowRig.close();
    }
  });
});
