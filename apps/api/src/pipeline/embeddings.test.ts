// The embeddings pipeline's stages (embeddings.ts) and its wire (embeddings-wire.ts): validate
// refuses a bad body before anything is routed (so the runner leaves it unmetered), route refuses
// what is not one named embedding model, and the wire reads inputs and writes OpenAI's list.
import { describe, expect, it } from 'vitest';
import type { PipelineDeps } from './deps.ts';
import { newCallContext } from './context.ts';
import { EMBEDDING_STAGES } from './embeddings.ts';
import { base64Embedding, embeddingsResponse, embeddingTokenBound, estimateEmbeddingTokens, inputList } from './embeddings-wire.ts';
import { runStages, type Call } from './run-call.ts';
import { upstreamSignal } from './upstream-signal.ts';
import { noUsage } from '../wire/usage.ts';

const principal = { accountId: 'acct_1', workflowId: 'wf_1', keyId: 'k' };
/** The services the first two stages read: whether the workflow is in production. */
const deps = { workflowLife: { inProduction: () => false } } as unknown as PipelineDeps;

function callWith(body: unknown): Call {
  const gone = new AbortController().signal;
  return {
    ctx: newCallContext(principal),
    request: { headers: {}, body, principal, elapsed: () => 1, gone },
    upstream: upstreamSignal(gone, 60_000),
    trace: null,
    plan: null,
    learn: null,
  };
}

describe('embeddings stages', () => {
  it('runs validate, route, budget and dispatch, in that order', () => {
    expect(EMBEDDING_STAGES.map((s) => s.name)).toEqual(['validate', 'route', 'budget', 'dispatch']);
  });

  it('refuses an invalid body before routing: nothing is routed, so the call is not metered', async () => {
    for (const body of [{ model: 'text-embedding-3-small' }, { model: 'm', input: [] }, { model: 'm', input: 'x', extra: 1 }, 'not an object']) {
      const call = callWith(body);
      await expect(runStages(EMBEDDING_STAGES, call, deps)).rejects.toMatchObject({ code: 'invalid_request' });
      expect(call.ctx.route).toBeNull();
    }
  });

  it('refuses a routed name: vectors of different models cannot be compared, so only the client names the model', async () => {
    const call = callWith({ model: 'auto', input: 'hello' });
    await expect(runStages(EMBEDDING_STAGES, call, deps)).rejects.toMatchObject({ code: 'not_embedding_model', param: 'model' });
    expect(call.ctx.requestedModel).toBe('auto');
    expect(call.ctx.route).toBeNull();
  });

  it('refuses a name that cannot be stored (a NUL in the model)', async () => {
    const call = callWith({ model: 'text\u0000embedding', input: 'hello' });
    await expect(runStages(EMBEDDING_STAGES, call, deps)).rejects.toMatchObject({ status: 400 });
    expect(call.ctx.requestedModel).toBe('');
  });
});

describe('embeddings wire', () => {
  it('reads a string or one token array as one input, and lists as they come', () => {
    expect(inputList('a')).toEqual(['a']);
    expect(inputList([1, 2, 3])).toEqual([[1, 2, 3]]);
    expect(inputList(['a', 'b'])).toEqual(['a', 'b']);
    expect(inputList([[1], [2, 3]])).toEqual([[1], [2, 3]]);
  });

  it('bounds the tokens it reserves for from above, for text and token arrays', () => {
    const input = ['héllo wörld, a few words to embed', 'more'];
    expect(embeddingTokenBound(input)).toBeGreaterThanOrEqual(estimateEmbeddingTokens(input));
    expect(embeddingTokenBound([[1, 2, 3]])).toBe(3);
    expect(estimateEmbeddingTokens([[1, 2, 3]])).toBe(3);
  });

  it('writes base64 as little-endian float32, and the list in OpenAI’s shape', () => {
    const b64 = base64Embedding([1, -0.5]);
    const buf = Buffer.from(b64, 'base64');
    expect([buf.readFloatLE(0), buf.readFloatLE(4)]).toEqual([1, -0.5]);
    const usage = { ...noUsage, promptTokens: 7 };
    expect(embeddingsResponse({ vectors: [[0.25]], promptTokens: 7 }, 'm', usage, 'float')).toEqual({
      object: 'list',
      data: [{ object: 'embedding', index: 0, embedding: [0.25] }],
      model: 'm',
      usage: { prompt_tokens: 7, total_tokens: 7 },
    });
    expect((embeddingsResponse({ vectors: [[1, -0.5]], promptTokens: 7 }, 'm', usage, 'base64').data as { embedding: unknown }[])[0]!.embedding).toBe(b64);
  });
});
