// Usage and cost for every provider, through the gateway with the official openai SDK:
// each mock reports cached, cache-write and reasoning tokens in its vendor's wire format
// (as far as that vendor reports them), and the client must get OpenAI's usage shape while
// the optimizer block, GET /v1/calls and GET /v1/activity carry catalog prices × that usage:
// cached input at the cached price, cache writes at the write multiplier, reasoning billed
// as output. The same holds on streams; a stream the client cancels stops the vendor and is
// metered once, for what was delivered, counted by the tokenizer and flagged estimated.
import OpenAI from 'openai';
import type { ModelProfile } from '@optimizer/schema';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { authed, signup, startGateway, type TestGateway } from '../support/gateway.ts';
import { resolvePinned } from '../../src/pipeline/route.ts';
import { countPromptTokens, countTokens } from '../../src/pipeline/tokens.ts';
import type { ConformanceMock, ProviderConformance } from './descriptor.ts';

const modules = import.meta.glob<{ conformance: ProviderConformance }>('./providers/*.ts', { eager: true });
const providers = Object.values(modules).map((m) => m.conformance);
const PLATFORM_KEY = 'sk-conformance-platform-key';
const CHUNK_DELAY_MS = 30;

/** What every mock is scripted to report: prompt and completion totals in OpenAI's sense. */
const SCRIPTED = { prompt_tokens: 10_000, completion_tokens: 2_000, cached_tokens: 4_000, cache_write_tokens: 1_000, cache_write_long_tokens: 400, reasoning_tokens: 1_500 };
const LONG_ANSWER = Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ');

/** Prices for a model the catalog does not list, so every provider's cost is checked against a price. */
const TEST_PRICES = { input_per_mtok: 3, output_per_mtok: 15, cached_input_per_mtok: 0.3, cache_write_multiplier: 1.25 };

interface CallView {
  id: string;
  status: number;
  error_code: string | null;
  usage: { prompt_tokens: number; completion_tokens: number; cached_tokens: number; reasoning_tokens: number; estimated: boolean };
  cost: { baseline: number; served: number; actual: number; exploration: number };
}

/** Catalog price × usage, in USD rounded to the micro-dollar (design §5), computed here from the profile; writes kept an hour cost 2× input. */
function priced(p: ModelProfile, u: { prompt: number; completion: number; cached: number; writes: number; longWrites: number }): number {
  const shortWrites = u.writes - u.longWrites;
  const micros =
    (u.prompt - u.cached - u.writes) * p.input_per_mtok + u.cached * p.cached_input_per_mtok + shortWrites * p.input_per_mtok * p.cache_write_multiplier +
    u.longWrites * p.input_per_mtok * 2 + u.completion * p.output_per_mtok;
  return Math.round(micros) / 1e6;
}

describe.each(providers.map((p) => [p.provider, p] as const))('%s: usage and cost', (_name, p) => {
  let mock: ConformanceMock;
  let gw: TestGateway;
  let client: OpenAI;
  let apiKey: string;
  let profile: ModelProfile;

  const report = { cached: p.usage?.cached ?? true, cacheWrites: p.usage?.cacheWrites ?? false, longCacheWrites: p.usage?.longCacheWrites ?? false, reasoning: p.usage?.reasoning ?? true };
  const cached = report.cached ? SCRIPTED.cached_tokens : 0;
  const writes = report.cacheWrites ? SCRIPTED.cache_write_tokens : 0;
  const longWrites = report.longCacheWrites ? SCRIPTED.cache_write_long_tokens : 0;
  const reasoning = report.reasoning ? SCRIPTED.reasoning_tokens : 0;
  const expectedUsage = {
    prompt_tokens: SCRIPTED.prompt_tokens,
    completion_tokens: SCRIPTED.completion_tokens,
    total_tokens: SCRIPTED.prompt_tokens + SCRIPTED.completion_tokens,
    prompt_tokens_details: { cached_tokens: cached },
    completion_tokens_details: { reasoning_tokens: reasoning },
  };
  const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You answer briefly.' },
    { role: 'user', content: 'What is six times seven?' },
  ];

  beforeAll(async () => {
    mock = await p.startMock(PLATFORM_KEY, { chunkDelayMs: CHUNK_DELAY_MS });
    gw = await startGateway({ env: p.env(mock.url, PLATFORM_KEY) });
    apiKey = (await signup(gw)).api_key;
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey, maxRetries: 0 });
    const resolved = resolvePinned(p.model, gw.services.catalog, gw.services.providers);
    if (!resolved.profile) {
      const r = await fetch(`${gw.url}/v1/admin/catalog/${encodeURIComponent(resolved.model)}`, {
        method: 'PUT',
        headers: authed(gw.adminKey),
        body: JSON.stringify({
          provider: resolved.provider, ...TEST_PRICES,
          input_modalities: ['text', 'image'], output_modalities: ['text'], tools: 'full', structured_outputs: true, reasoning_efforts: [],
          context_length: 200_000, max_output_tokens: 8_192,
        }),
      });
      expect(r.status, await r.clone().text()).toBe(200);
    }
    profile = resolvePinned(p.model, gw.services.catalog, gw.services.providers).profile!;
    expect(profile, 'the model is priced').toBeDefined();
  });
  afterAll(async () => {
    await gw?.close();
    await mock?.close();
  });
  beforeEach(() => mock.reset());

  async function callsById(id: string): Promise<CallView[]> {
    const r = await fetch(`${gw.url}/v1/calls?limit=500`, { headers: authed(apiKey) });
    return ((await r.json()) as { data: CallView[] }).data.filter((c) => c.id === id);
  }
  async function activityOf(id: string): Promise<{ outcome: string; cost: number; prompt_tokens: number; completion_tokens: number }[]> {
    const r = await fetch(`${gw.url}/v1/activity?limit=500`, { headers: authed(apiKey) });
    return ((await r.json()) as { data: { call_id: string; outcome: string; cost: number; prompt_tokens: number; completion_tokens: number }[] }).data.filter((a) => a.call_id === id);
  }

  /** The cost this provider's scripted usage must come to. */
  const cost = () => priced(profile, { prompt: SCRIPTED.prompt_tokens, completion: SCRIPTED.completion_tokens, cached, writes, longWrites });

  async function expectMetered(callId: string): Promise<void> {
    const c = cost();
    expect(c).toBeGreaterThan(0);
    const calls = await callsById(callId);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      status: 200,
      usage: { prompt_tokens: SCRIPTED.prompt_tokens, completion_tokens: SCRIPTED.completion_tokens, cached_tokens: cached, reasoning_tokens: reasoning, estimated: false },
      cost: { baseline: c, served: c, actual: c, exploration: 0 },
    });
    const activity = await activityOf(callId);
    expect(activity).toEqual([expect.objectContaining({ outcome: 'ok', cost: c, prompt_tokens: SCRIPTED.prompt_tokens, completion_tokens: SCRIPTED.completion_tokens })]);
  }

  it('reports cached and reasoning tokens in OpenAI shape and prices them from the catalog (non-stream)', async () => {
    mock.script({ content: 'Forty-two.', usage: SCRIPTED });
    const { data: r, response } = await client.chat.completions.create({ model: p.model, messages }).withResponse();
    expect(r.usage).toMatchObject(expectedUsage);
    const c = cost();
    expect((r as unknown as { optimizer: unknown }).optimizer).toEqual({ cache_hit: false, baseline_cost: c, served_cost: c, actual_cost: c, exploration_cost: 0, saving: 0 });
    await expectMetered(response.headers.get('x-optimizer-call-id')!);
  });

  it('does the same on a stream, in the usage chunk the client asked for', async () => {
    mock.script({ content: 'Forty-two.', usage: SCRIPTED });
    const { data: stream, response } = await client.chat.completions.create({ model: p.model, messages, stream: true, stream_options: { include_usage: true } }).withResponse();
    let usage: OpenAI.Completions.CompletionUsage | undefined;
    let optimizer: unknown;
    let text = '';
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      usage = chunk.usage ?? usage;
      optimizer = (chunk as unknown as { optimizer?: unknown }).optimizer ?? optimizer;
    }
    expect(text).toBe('Forty-two.');
    expect(usage).toMatchObject(expectedUsage);
    const c = cost();
    expect(optimizer).toEqual({ cache_hit: false, baseline_cost: c, served_cost: c, actual_cost: c, exploration_cost: 0, saving: 0 });
    await expectMetered(response.headers.get('x-optimizer-call-id')!);
  });

  it('meters a stream from the vendor usage when the client did not ask for the usage chunk', async () => {
    mock.script({ content: 'Forty-two.', usage: SCRIPTED });
    const { data: stream, response } = await client.chat.completions.create({ model: p.model, messages, stream: true }).withResponse();
    let sawUsage = false;
    let optimizer: { actual_cost?: number } | undefined;
    for await (const chunk of stream) {
      sawUsage ||= chunk.usage != null;
      optimizer = (chunk as unknown as { optimizer?: { actual_cost: number } }).optimizer ?? optimizer;
    }
    expect(sawUsage).toBe(false);
    expect(optimizer?.actual_cost).toBe(cost());
    await expectMetered(response.headers.get('x-optimizer-call-id')!);
  });

  it('cancels the vendor when the client aborts a stream, and meters what was delivered once, estimated', async () => {
    mock.script({ content: LONG_ANSWER });
    const { data: stream, response } = await client.chat.completions.create({ model: p.model, messages, stream: true, stream_options: { include_usage: true } }).withResponse();
    const callId = response.headers.get('x-optimizer-call-id')!;
    let received = '';
    let pieces = 0;
    for await (const chunk of stream) {
      const piece = chunk.choices[0]?.delta?.content ?? '';
      received += piece;
      if (piece && ++pieces >= 2) break; // leaving the loop aborts the request
    }
    expect(received.length).toBeGreaterThan(0);
    await vi.waitFor(() => expect(mock.aborted).toBe(1), { timeout: 5_000, interval: 25 });
    await vi.waitFor(async () => expect(await callsById(callId)).toHaveLength(1), { timeout: 5_000, interval: 50 });

    const [call] = await callsById(callId);
    expect(call).toMatchObject({ status: 499, error_code: 'client_closed_request', usage: { cached_tokens: 0, reasoning_tokens: 0, estimated: true } });
    expect(call!.usage.prompt_tokens).toBe(countPromptTokens(messages as unknown[]));
    // What the gateway wrote before it saw the client go: at least what the client read, far short of the answer.
    expect(call!.usage.completion_tokens).toBeGreaterThanOrEqual(countTokens(received));
    expect(call!.usage.completion_tokens).toBeLessThan(countTokens(LONG_ANSWER) / 2);
    const c = priced(profile, { prompt: call!.usage.prompt_tokens, completion: call!.usage.completion_tokens, cached: 0, writes: 0, longWrites: 0 });
    expect(c).toBeGreaterThan(0);
    expect(call!.cost).toEqual({ baseline: c, served: c, actual: c, exploration: 0 });
    expect(await activityOf(callId)).toEqual([expect.objectContaining({ outcome: 'cancelled', cost: c })]);
    // The vendor saw one request and no more: nothing retried or failed over after the first byte.
    expect(mock.requests).toHaveLength(1);
  });
});
