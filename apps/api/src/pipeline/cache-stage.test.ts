// The cache stage returns its outcome instead of answering: a hit is a CacheHit value (the
// runner meters and answers it), a miss is null with the answer's store arranged for later.
import { describe, expect, it } from 'vitest';
import type { CachedAnswer } from '../cache/answer-cache.ts';
import type { PipelineDeps } from './deps.ts';
import { serveFromCache } from './cache-stage.ts';
import { newCallContext, type CallContext } from './context.ts';

const answer: CachedAnswer = { text: '{"choices":[{"finish_reason":"stop","message":{"content":"Oslo"}}]}', model: 'gpt-4.1-mini', provider: 'openai', baselineMicros: 900, promptTokens: 3, completionTokens: 1 };

function setup(stored: CachedAnswer | null, stream = false) {
  const puts: string[] = [];
  const s = {
    routingSettings: { get: () => ({ cache: { exact: true } }) },
    answerCache: { get: async () => stored, put: async (key: string) => void puts.push(key) },
    catalog: { get: () => undefined },
  } as unknown as PipelineDeps;
  const ctx: CallContext = newCallContext({ accountId: 'acct_1', workflowId: 'wf_1', keyId: 'k' });
  ctx.stream = stream;
  ctx.requestedModel = 'gpt-4.1';
  ctx.body = { model: 'gpt-4.1', messages: [{ role: 'user', content: 'capital of Norway?' }] };
  ctx.route = { model: 'gpt-4.1', provider: 'openai', requestedProvider: 'openai', profile: undefined, pinned: true, baselineModel: 'gpt-4.1', baselineProfile: undefined, reasons: [], failover: [] };
  return { s, ctx, puts };
}

describe('serveFromCache', () => {
  it('returns a hit as a CacheHit outcome, the call now served by the cached model', async () => {
    const { s, ctx } = setup(answer);
    const hit = await serveFromCache(ctx, s, undefined);
    expect(hit).toEqual({ kind: 'cache-hit', answer, source: 'exact' });
    expect(ctx.cacheHit).toEqual({ source: 'cache', baselineMicros: 900 });
    expect(ctx.route).toMatchObject({ model: 'gpt-4.1-mini', provider: 'openai' });
    expect(ctx.cacheHeaders['x-optimizer-cache-kind']).toBe('exact');
    expect(ctx.served?.usage).toMatchObject({ promptTokens: 3, completionTokens: 1 });
    expect(ctx.priced).toBeNull(); // nothing metered here: the runner's exit does that
  });

  it('returns null on a miss and stores a good answer once the call has one', async () => {
    const { s, ctx, puts } = setup(null);
    expect(await serveFromCache(ctx, s, undefined)).toBeNull();
    expect(ctx.cacheHeaders['x-optimizer-cache']).toBe('miss');
    await ctx.afterAnswer!(answer.text, { baseline: 900, served: 100, actual: 100, exploration: 0, saving: 800 });
    expect(puts).toHaveLength(1);
  });

  it('looks nothing up for a client that asks for no cache', async () => {
    const { s, ctx } = setup(answer);
    expect(await serveFromCache(ctx, s, 'no-cache')).toBeNull();
    expect(ctx.cacheHit).toBeNull();
  });
});
