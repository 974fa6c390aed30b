// `respond` turns a metered outcome into the Reply a transport renders: a whole answer with its
// `optimizer` block (JSON, or the vendor's events to a stream request), a cache hit, a stream's
// last piece, an idempotent replay. It writes to nothing.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.ts';
import { newCallContext, type CallContext, type Costs } from './context.ts';
import type { Streamed } from './outcome.ts';
import { respond } from './respond.ts';
import { noUsage } from '../wire/usage.ts';

const principal = { accountId: 'acct_1', workflowId: 'wf_1', keyId: 'key_1' };
const costs: Costs = { baseline: 2_000_000, served: 500_000, actual: 500_000, exploration: 0, saving: 1_500_000 };
const completion = JSON.stringify({ id: 'c1', object: 'chat.completion', created: 1, model: 'gpt-4.1-mini', choices: [{ index: 0, message: { role: 'assistant', content: 'Oslo' }, finish_reason: 'stop' }] });
const usage = { ...noUsage, promptTokens: 3, completionTokens: 1 };

function ctxOf(stream = false): CallContext {
  const ctx = newCallContext(principal);
  ctx.stream = stream;
  ctx.requestedModel = 'gpt-4.1';
  ctx.route = { model: 'gpt-4.1-mini', provider: 'openai', requestedProvider: 'openai', profile: undefined, pinned: false, baselineModel: 'gpt-4.1', baselineProfile: undefined, reasons: [], failover: [] };
  return ctx;
}

function streamed(over: Partial<Streamed> = {}): Streamed {
  return { kind: 'streamed', headers: {}, attempt: {} as Streamed['attempt'], status: 200, errorCode: null, failure: null, usage, overheadMs: 1, vendorStatus: 200, assembled: null, meta: { id: 'c1', created: 1, model: 'gpt-4.1-mini' }, usageChunk: null, held: '', recorded: null, named: null, ...over };
}

describe('respond', () => {
  it('sends a served answer as the vendor sent it, with its optimizer block and the call headers', () => {
    const ctx = ctxOf();
    const reply = respond(ctx, { kind: 'served', text: completion, upstreamMs: 10, vendorStatus: 200, usage }, costs, 1.5);
    expect(reply.status).toBe(200);
    expect(reply.headers).toMatchObject({ 'content-type': 'application/json', 'x-optimizer-call-id': ctx.id, 'x-optimizer-model': 'gpt-4.1-mini', 'x-optimizer-overhead-ms': '1.500' });
    const body = JSON.parse(reply.body as string) as Record<string, any>;
    expect(body.choices[0].message.content).toBe('Oslo');
    expect(body.optimizer).toEqual({ cache_hit: false, baseline_cost: 2, served_cost: 0.5, actual_cost: 0.5, exploration_cost: 0, saving: 1.5 });
  });

  it("names a routed call's step and the policy its outcome counts for, and a trial as a trial", () => {
    const ctx = ctxOf();
    ctx.optimizer = { fingerprint: 'f1', step: 'triage', policy: 'gate:gpt-4.1-nano+gpt-4.1-mini', settled: true, baseline: 'gpt-4.1', floor: 0.95 };
    const served = { kind: 'served' as const, text: completion, upstreamMs: 10, vendorStatus: 200, usage };
    expect(respond(ctx, served, costs, 1).headers).toMatchObject({ 'x-optimizer-step': 'f1', 'x-optimizer-policy': 'gate:gpt-4.1-nano+gpt-4.1-mini' });
    expect(respond(ctx, served, costs, 1).headers['x-optimizer-trial']).toBeUndefined();
    ctx.optimizer = { ...ctx.optimizer, policy: 'model:gpt-4.1-mini', trial: { risk_budget_used: 0.2 } };
    expect(respond(ctx, served, costs, 1).headers).toMatchObject({ 'x-optimizer-policy': 'model:gpt-4.1-mini', 'x-optimizer-trial': 'model:gpt-4.1-mini' });
    expect(respond(ctxOf(), served, costs, 1).headers['x-optimizer-policy']).toBeUndefined(); // not routed
  });

  it('answers a stream request served whole as the vendor events, saying why it was held', () => {
    const reply = respond(ctxOf(true), { kind: 'served', text: completion, upstreamMs: 10, vendorStatus: 200, usage, held: 'quality-gate' }, costs, 1);
    expect(reply.headers).toMatchObject({ 'content-type': 'text/event-stream; charset=utf-8', 'x-optimizer-held': 'quality-gate' });
    expect(reply.body).toMatch(/^data: \{.*"content":"Oslo"/s);
    expect(reply.body).toMatch(/"optimizer":\{"cache_hit":false.*\n\ndata: \[DONE\]\n\n$/s);
  });

  it('marks a cache hit, whole or as events', () => {
    const hit = { kind: 'cache-hit' as const, answer: { text: completion, model: 'gpt-4.1-mini', provider: 'openai', baselineMicros: 2_000_000, promptTokens: 3, completionTokens: 1 }, source: 'exact' as const };
    const whole = ctxOf();
    whole.cacheHit = { source: 'cache', baselineMicros: 2_000_000 };
    whole.served = { provider: 'openai', model: 'gpt-4.1-mini', profile: undefined, startedAt: new Date(), latencyMs: 0, status: null, outcome: 'ok', usage, role: 'serve' };
    const json = respond(whole, hit, costs, 0.2);
    expect(json.headers['x-optimizer-cache']).toBe('hit');
    expect((JSON.parse(json.body as string) as { optimizer: { cache_hit: boolean } }).optimizer.cache_hit).toBe(true);
    const events = respond(ctxOf(true), hit, costs, 0.2);
    expect(events.headers).toMatchObject({ 'x-optimizer-cache': 'hit', 'cache-control': 'no-cache' });
    expect(events.body).toContain('"cache_hit":true');
  });

  it("makes a stream's last piece: the final chunk and [DONE], or an error event instead", () => {
    const ctx = ctxOf(true);
    const done = respond(ctx, streamed({ held: 'data-held' }), costs, 1).body as string;
    expect(done).toMatch(/^data: data-held\n\ndata: \{"id":"c1","object":"chat.completion.chunk".*"optimizer":.*\n\ndata: \[DONE\]\n\n$/s);
    const unrecorded = respond(ctx, streamed(), costs, 1, new ApiError('internal')).body as string;
    expect(unrecorded).toMatch(/"code":"internal"/);
    expect(unrecorded).not.toContain('[DONE]');
    const failed = respond(ctx, streamed({ status: 502, failure: new ApiError('upstream_error') }), costs, 1).body as string;
    expect(failed).toMatch(/"code":"upstream_error"/);
    expect(failed).not.toContain('optimizer');
  });

  it('replays an earlier answer as it was sent, marked replayed', () => {
    const reply = respond(ctxOf(), { kind: 'replayed', record: { fingerprint: 'f', state: 'done', status: 201, headers: JSON.stringify({ 'content-type': 'application/json' }), body: '{"a":1}' } }, costs, 0);
    expect(reply).toMatchObject({ status: 201, headers: { 'content-type': 'application/json', 'idempotent-replayed': 'true' }, body: '{"a":1}' });
  });
});
