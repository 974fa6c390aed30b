// The completion pipeline against a mock OpenAI vendor, driven by the official SDK.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type OpenAI from 'openai';
import { authed } from './support/gateway.ts';
import { callRecords, startRig, type Rig } from './support/vendor.ts';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
});
afterAll(async () => {
  await rig.close();
});
beforeEach(() => rig.vendor.reset());

type WithOptimizer = { optimizer: { cache_hit: boolean; baseline_cost: number; served_cost: number; actual_cost: number; exploration_cost: number; saving: number } };

const weatherTool: OpenAI.Chat.Completions.ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

describe('pass-through that loses nothing', () => {
  it('completes a non-stream call and the vendor receives exactly the client body minus optimizer', async () => {
    const body = {
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'What is in this image?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' } }] },
      ],
      temperature: 0.2,
      top_p: 0.9,
      stop: ['\n\n'],
      seed: 7,
      n: 1,
      max_completion_tokens: 200,
      logprobs: false,
      user: 'user-42',
      parallel_tool_calls: false,
      tools: [weatherTool],
      tool_choice: 'auto',
      optimizer: { run: { id: 'run-1', seq: 0, is_start: true }, step: { id: 'describe', kind: 'extraction' }, source: { release: 'v1' } },
    };
    const res = (await rig.client.chat.completions.create(body as never)) as unknown as OpenAI.Chat.Completions.ChatCompletion & WithOptimizer;
    expect(res.choices[0]!.message).toBeDefined();
    expect(res.optimizer.cache_hit).toBe(false);
    expect(rig.vendor.requests).toHaveLength(1);
    const { optimizer: _dropped, ...expected } = body;
    expect(rig.vendor.requests[0]!.body).toEqual(expected);
    expect(rig.vendor.requests[0]!.headers.authorization).toBe('Bearer sk-platform-test-key');
  });

  it('honors a pinned model verbatim', async () => {
    await rig.client.chat.completions.create({ model: 'gpt-4.1-nano', messages: [{ role: 'user', content: 'hi' }] });
    expect(rig.vendor.requests[0]!.body.model).toBe('gpt-4.1-nano');
  });

  it("forwards the client's own bytes when there is nothing to remove, and the body without the annotation when there is", async () => {
    const post = (text: string) =>
      fetch(`${rig.gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${rig.tenant.api_key}`, 'content-type': 'application/json' }, body: text });
    // Spacing, key order, an escaped character and a number written as 1.0 all survive.
    const raw = '{ "messages": [ {"role": "user", "content": "caf\\u00e9 at 1.0"} ],\n  "temperature": 1.0, "model": "gpt-4o-mini" }';
    expect((await post(raw)).status).toBe(200);
    expect(rig.vendor.requests[0]!.rawBody).toBe(raw);

    const annotated = '{"model": "gpt-4o-mini", "optimizer": {"step": {"id": "greet"}}, "messages": [{"role": "user", "content": "hi"}], "temperature": 1.0}';
    expect((await post(annotated)).status).toBe(200);
    const sent = rig.vendor.requests[1]!.rawBody;
    expect(sent).not.toContain('optimizer');
    expect(JSON.parse(sent)).toEqual({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], temperature: 1 });
  });

  it('passes json_schema output through and returns the JSON answer', async () => {
    const res = await rig.client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Give me a person' }],
      response_format: { type: 'json_schema', json_schema: { name: 'person', strict: true, schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false } } },
    });
    expect(JSON.parse(res.choices[0]!.message.content!)).toHaveProperty('name');
    expect(rig.vendor.requests[0]!.body.response_format.type).toBe('json_schema');
  });

  it('returns tool calls from a non-stream call', async () => {
    const res = await rig.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'weather in Oslo?' }], tools: [weatherTool], tool_choice: 'required' });
    expect(res.choices[0]!.message.tool_calls?.[0]).toMatchObject({ type: 'function', function: { name: 'get_weather' } });
  });

  it('rejects a malformed annotation with 400 naming the field, and a missing model', async () => {
    const r = await fetch(`${rig.gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: authed(rig.tenant.api_key),
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], optimizer: { run: { seq: -1 } } }),
    });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: { param: string } }).error.param).toBe('optimizer.run.seq');
    const r2 = await fetch(`${rig.gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify({ messages: [] }) });
    expect(r2.status).toBe(400);
    expect(rig.vendor.requests).toHaveLength(0);
  });
});

describe('streaming', () => {
  it('relays chunks, ends with [DONE], and puts the optimizer block on the final chunk', async () => {
    const stream = await rig.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'tell me a story about a fox' }], stream: true });
    let text = '';
    let last: (OpenAI.Chat.Completions.ChatCompletionChunk & Partial<WithOptimizer>) | undefined;
    let sawUsage = false;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) sawUsage = true;
      last = chunk as typeof last;
    }
    expect(text).toContain('mock answer');
    expect(last!.optimizer).toMatchObject({ cache_hit: false });
    expect(last!.choices).toEqual([]);
    expect(sawUsage).toBe(false);
    // the gateway asked the vendor for usage even though the client did not
    expect(rig.vendor.requests[0]!.body.stream_options).toEqual({ include_usage: true });
  });

  it('passes the usage chunk on when the client asked for it, with the optimizer block on it', async () => {
    const stream = await rig.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }], stream: true, stream_options: { include_usage: true } });
    const chunks: (OpenAI.Chat.Completions.ChatCompletionChunk & Partial<WithOptimizer>)[] = [];
    for await (const c of stream) chunks.push(c as never);
    const final = chunks.at(-1)!;
    expect(final.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(final.optimizer).toBeDefined();
    expect(chunks.filter((c) => c.usage)).toHaveLength(1);
  });

  it('relays streamed tool-call deltas intact', async () => {
    rig.vendor.script({ content: null, tool_calls: [{ name: 'get_weather', arguments: '{"city":"Oslo","unit":"celsius"}' }], finish_reason: 'tool_calls' });
    const stream = await rig.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'weather?' }], tools: [weatherTool], stream: true });
    let args = '';
    let name = '';
    let finish: string | null | undefined;
    for await (const c of stream) {
      const tc = c.choices[0]?.delta?.tool_calls?.[0];
      if (tc?.function?.name) name = tc.function.name;
      args += tc?.function?.arguments ?? '';
      finish = c.choices[0]?.finish_reason ?? finish;
    }
    expect(name).toBe('get_weather');
    expect(JSON.parse(args)).toEqual({ city: 'Oslo', unit: 'celsius' });
    expect(finish).toBe('tool_calls');
  });

  it('sends the first byte before the vendor has finished', async () => {
    const slow = await startRig({ vendorOptions: { chunkDelayMs: 150 } });
    try {
      const t0 = performance.now();
      const r = await fetch(`${slow.gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: authed(slow.tenant.api_key),
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'one two three four five six seven eight' }], stream: true }),
      });
      const reader = r.body!.getReader();
      await reader.read();
      const firstAt = performance.now() - t0;
      let rest = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        rest += new TextDecoder().decode(value);
      }
      const totalAt = performance.now() - t0;
      expect(rest).toContain('[DONE]');
      // several 150 ms gaps separate the chunks; the first must not wait for them all
      expect(totalAt - firstAt).toBeGreaterThan(450);
    } finally {
      await slow.close();
    }
  });
});

describe('vendor keys', () => {
  it('prefers x-provider-key, then the tenant stored key, then the platform key', async () => {
    const ask = (headers: Record<string, string> = {}) =>
      fetch(`${rig.gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(rig.tenant.api_key, headers), body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }) });
    await ask();
    expect(rig.vendor.requests.at(-1)!.headers.authorization).toBe('Bearer sk-platform-test-key');
    await fetch(`${rig.gw.url}/v1/settings/provider-keys/openai`, { method: 'PUT', headers: authed(rig.tenant.api_key), body: JSON.stringify({ key: 'sk-tenant-stored-key' }) });
    const stored = await ask();
    expect(stored.status).toBe(401); // the mock only knows the platform key: the stored key was used
    expect(rig.vendor.requests.at(-1)!.headers.authorization).toBe('Bearer sk-tenant-stored-key');
    const header = await ask({ 'x-provider-key': 'sk-platform-test-key' });
    expect(header.status).toBe(200);
    await fetch(`${rig.gw.url}/v1/settings/provider-keys/openai`, { method: 'DELETE', headers: { authorization: `Bearer ${rig.tenant.api_key}` } });
  });
});

describe('metering', () => {
  it('records each call with routed model, tokens, costs, reasons, latency and vendor status, and lists it in /v1/calls and /v1/activity', async () => {
    await rig.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'count me' }] });
    const calls = (await (await fetch(`${rig.gw.url}/v1/calls?limit=1`, { headers: authed(rig.tenant.api_key) })).json()) as { data: any[] };
    expect(calls.data).toHaveLength(1);
    const c = calls.data[0];
    expect(c).toMatchObject({ model: 'gpt-4o-mini', routed_model: 'gpt-4o-mini', provider: 'openai', status: 200, vendor_status: 200, cache: { hit: false } });
    expect(c.usage.prompt_tokens).toBeGreaterThan(0);
    expect(c.reasons[0]).toContain('pinned to gpt-4o-mini');
    expect(c.latency_ms).toBeGreaterThan(0);
    const act = (await (await fetch(`${rig.gw.url}/v1/activity?limit=5`, { headers: authed(rig.tenant.api_key) })).json()) as { data: any[] };
    expect(act.data.find((a) => a.call_id === c.id)).toMatchObject({ attempt: 1, provider: 'openai', model: 'gpt-4o-mini', status: 200, outcome: 'ok' });
  });

  it('caps the calls limit at 500 and refuses a bad limit or another tenant agent', async () => {
    expect((await fetch(`${rig.gw.url}/v1/calls?limit=501`, { headers: authed(rig.tenant.api_key) })).status).toBe(422);
    expect((await fetch(`${rig.gw.url}/v1/calls?limit=abc`, { headers: authed(rig.tenant.api_key) })).status).toBe(422);
    expect((await fetch(`${rig.gw.url}/v1/calls?agent=wf_nope`, { headers: authed(rig.tenant.api_key) })).status).toBe(404);
  });

  it('reports savings totals split by source', async () => {
    const s = (await (await fetch(`${rig.gw.url}/v1/dashboard/savings`, { headers: authed(rig.tenant.api_key) })).json()) as any;
    expect(s.by_source).toEqual({ cache: 0, routing: 0, ttc: 0, trace: 0 });
    expect(s.calls).toBeGreaterThan(0);
    expect(s.saving).toBeCloseTo(s.baseline_cost - s.actual_cost, 6);
  });

  it('reports its own overhead in a response header', async () => {
    const r = await fetch(`${rig.gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }) });
    expect(Number(r.headers.get('x-optimizer-overhead-ms'))).toBeGreaterThanOrEqual(0);
    expect(r.headers.get('x-optimizer-call-id')).toMatch(/^call_/);
  });

  it('keeps each tenant to its own calls', async () => {
    const other = await (await import('./support/gateway.ts')).signup(rig.gw);
    const calls = (await (await fetch(`${rig.gw.url}/v1/calls`, { headers: authed(other.api_key) })).json()) as { data: unknown[] };
    expect(calls.data).toEqual([]);
    expect((await callRecords(rig.gw, other.account_id)).length).toBe(0);
  });
});

describe('the model list', () => {
  it('lists auto, discover and the enabled catalog models in OpenAI list shape, for the official SDK', async () => {
    const ids: string[] = [];
    for await (const m of rig.client.models.list()) ids.push(m.id);
    expect(ids.slice(0, 2)).toEqual(['auto', 'discover']);
    expect(ids).toContain('gpt-4o-mini');
    const disabled = rig.gw.services.catalog.all().find((m) => m.disabled);
    if (disabled) expect(ids).not.toContain(disabled.model);
  });
});
