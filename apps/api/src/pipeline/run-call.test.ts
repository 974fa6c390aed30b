// The runner (run-call.ts): whatever a pipeline's stages end in, the call is metered once,
// through the one exit, and answered as a Reply; a refusal is not metered; a failure is metered
// and thrown; a stream is metered when its body ends, and its learning waits for the Reply to go.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.ts';
import type { MeterBatch } from '../meter/rows.ts';
import type { PipelineDeps } from './deps.ts';
import type { Outcome } from './outcome.ts';
import { bodyText, type PipelineRequest } from './reply.ts';
import { runCall, runStages, type Call, type Pipeline, type Stage } from './run-call.ts';
import type { Relay } from './stream.ts';
import type { Streamed } from './outcome.ts';
import { noUsage } from '../wire/usage.ts';

const completion = JSON.stringify({ id: 'c1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }] });
const usage = { ...noUsage, promptTokens: 2, completionTokens: 1 };

/** The services the runner touches, recording what it did. */
function fakeServices() {
  const batches: MeterBatch[] = [];
  const log: string[] = [];
  let pending: Promise<void> | null = null;
  const s = {
    config: { UPSTREAM_TOTAL_TIMEOUT_MS: 60_000 },
    logger: { warn: () => undefined },
    meter: {
      record: (b: MeterBatch) => {
        batches.push(b);
        log.push('metered');
        pending = new Promise((resolve) => setTimeout(resolve, 5)).then(() => void log.push('written'));
      },
      written: () => pending,
    },
    budget: { release: () => void log.push('released') },
    idempotency: { complete: async (_c: unknown, status: number) => void log.push(`kept ${status}`), release: async () => void log.push('unclaimed') },
  };
  return { s: s as unknown as PipelineDeps, batches, log };
}

const request = (): PipelineRequest => ({ headers: {}, body: {}, principal: { accountId: 'acct_1', workflowId: 'wf_1', keyId: 'k' }, elapsed: () => 12, gone: new AbortController().signal });

function pipelineOf(end: (call: Parameters<Pipeline['stages']>[0]) => Outcome | Relay): Pipeline {
  return { stages: async (call) => end(call), metered: (ctx) => ctx.requestedModel !== '' };
}

describe('runCall', () => {
  it('meters a served answer once, and answers only once its line is written', async () => {
    const { s, batches, log } = fakeServices();
    const reply = await runCall(pipelineOf(({ ctx }) => ((ctx.requestedModel = 'm'), { kind: 'served', text: completion, upstreamMs: 4, vendorStatus: 200, usage })), s, request());
    log.push('answered');
    expect(batches).toHaveLength(1);
    expect(batches[0]!.calls).toEqual([expect.objectContaining({ status: 200, requested_model: 'm', latency_ms: 12, overhead_ms: 8, prompt_tokens: 2 })]);
    expect(log).toEqual(['metered', 'written', 'answered']);
    expect(JSON.parse(reply.body as string)).toMatchObject({ choices: [{ message: { content: 'hi' } }], optimizer: { cache_hit: false } });
  });

  it('refuses what never named a model, unmetered; meters a failure and throws it', async () => {
    const { s, batches } = fakeServices();
    await expect(runCall(pipelineOf(() => { throw new ApiError('invalid_request'); }), s, request())).rejects.toMatchObject({ code: 'invalid_request' });
    expect(batches).toHaveLength(0);
    const failing = pipelineOf(({ ctx }) => {
      ctx.requestedModel = 'm';
      throw new ApiError('upstream_error');
    });
    await expect(runCall(failing, s, request())).rejects.toMatchObject({ code: 'upstream_error' });
    expect(batches.map((b) => b.calls[0]!)).toEqual([expect.objectContaining({ status: 502, error_code: 'upstream_error' })]);
  });

  it("keeps a deterministic failure for the key's replay and frees the key after a retryable one", async () => {
    const { s, log } = fakeServices();
    const failWith = (code: 'invalid_request' | 'upstream_error') =>
      pipelineOf(({ ctx }) => {
        ctx.claim = { scope: 's', fingerprint: 'f' };
        ctx.requestedModel = 'm';
        throw new ApiError(code);
      });
    await expect(runCall(failWith('invalid_request'), s, request())).rejects.toBeInstanceOf(ApiError);
    await expect(runCall(failWith('upstream_error'), s, request())).rejects.toBeInstanceOf(ApiError);
    expect(log.filter((l) => l.startsWith('kept') || l === 'unclaimed')).toEqual(['kept 400', 'unclaimed']);
  });

  it('meters a stream when its body ends, not before, and ends it with the tail', async () => {
    const { s, batches } = fakeServices();
    const pieces = async function* (): AsyncGenerator<string, Streamed, undefined> {
      yield 'data: one\n\n';
      yield 'data: two\n\n';
      return { kind: 'streamed', headers: {}, attempt: { usage } as Streamed['attempt'], status: 200, errorCode: null, failure: null, usage, overheadMs: 1, vendorStatus: 200, assembled: null, meta: { id: 'c1' }, usageChunk: null, held: '', recorded: null, named: null };
    };
    const reply = await runCall(pipelineOf(({ ctx }) => ((ctx.requestedModel = 'm'), (ctx.stream = true), { kind: 'relay', headers: { 'content-type': 'text/event-stream' }, pieces: pieces() })), s, request());
    expect(typeof reply.body).not.toBe('string');
    expect(batches).toHaveLength(0); // nothing is metered while the stream is open
    const text = await bodyText(reply);
    expect(batches).toHaveLength(1);
    expect(text).toMatch(/^data: one\n\ndata: two\n\ndata: \{"id":"c1".*"optimizer".*\n\ndata: \[DONE\]\n\n$/s);
  });

  it('gives back the reservation of a call that was never metered', async () => {
    const { s, log } = fakeServices();
    await expect(
      runCall(
        pipelineOf(({ ctx }) => {
          ctx.reservation = {} as never;
          throw new ApiError('invalid_request');
        }),
        s,
        request(),
      ),
    ).rejects.toBeInstanceOf(ApiError);
    expect(log).toEqual(['released']);
  });
});

describe('the stage list', () => {
  const call = (marks: string[]) => ({ trace: { stage: (n: string) => marks.push(n) } }) as unknown as Call;
  const deps = {} as PipelineDeps;
  const replayed: Outcome = { kind: 'refused', error: new ApiError('invalid_request') };

  it('runs the stages in order, each marked, until one ends the call; the rest do not run', async () => {
    const marks: string[] = [];
    const ran: string[] = [];
    const stages: Stage[] = [
      { name: 'annotate', run: () => void ran.push('annotate') },
      { name: 'guard', run: async () => (ran.push('guard'), null) },
      { name: 'cache', run: () => (ran.push('cache'), replayed) },
      { name: 'dispatch', run: () => (ran.push('dispatch'), replayed) },
    ];
    expect(await runStages(stages, call(marks), deps)).toBe(replayed);
    expect(ran).toEqual(['annotate', 'guard', 'cache']);
    expect(marks).toEqual(['annotate', 'guard', 'cache']);
  });

  it('refuses a list whose last stage ends nothing', async () => {
    await expect(runStages([{ name: 'annotate', run: () => undefined }], call([]), deps)).rejects.toThrow(/annotate.*no outcome/);
  });
});
