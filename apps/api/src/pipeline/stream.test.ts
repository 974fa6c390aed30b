// The relay (stream.ts): the vendor's events become pieces as they arrive (one per upstream
// read), the vendor is not read while more than a bounded amount waits for the client, and the
// iteration returns how the stream ended: done, the vendor failing part-way, or the client gone.
import { describe, expect, it } from 'vitest';
import { OutboundBody } from '../providers/outbound.ts';
import { openaiAdapter } from '../providers/openai/adapter.ts';
import { newCallContext } from './context.ts';
import type { Dispatched } from './dispatch.ts';
import type { Streamed } from './outcome.ts';
import { relayStream } from './stream.ts';
import { noUsage } from '../wire/usage.ts';

const event = (content: string) => `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1-mini', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

function dispatchedStream() {
  let flowing = true;
  const body = new OutboundBody(() => undefined, (on) => (flowing = on));
  const ctx = newCallContext({ accountId: 'acct_1', workflowId: 'wf_1', keyId: 'k' });
  ctx.stream = true;
  ctx.requestedModel = 'gpt-4.1-mini';
  const attempt = { provider: 'openai', model: 'gpt-4.1-mini', profile: undefined, startedAt: new Date(), latencyMs: 0, status: 200, outcome: 'ok' as const, usage: noUsage, role: 'serve' as const };
  const target = { provider: { name: 'openai', wire: 'openai' as const, baseUrl: 'http://127.0.0.1:1/v1' }, model: 'gpt-4.1-mini', apiKey: 'sk-test' };
  const d = { response: { statusCode: 200, headers: {}, body }, startedAt: performance.now(), adapter: openaiAdapter, target, attempt } as unknown as Dispatched;
  return { ctx, d, body, flowing: () => flowing };
}

async function drain(pieces: AsyncGenerator<string, Streamed, undefined>): Promise<{ pieces: string[]; end: Streamed }> {
  const out: string[] = [];
  for (;;) {
    const r = await pieces.next();
    if (r.done) return { pieces: out, end: r.value };
    out.push(r.value);
  }
}

describe('relayStream', () => {
  it('yields one piece per upstream read and returns a finished stream', async () => {
    const { ctx, d, body } = dispatchedStream();
    const relay = relayStream(ctx, d, () => 5, new AbortController().signal);
    expect(relay.headers).toMatchObject({ 'content-type': 'text/event-stream; charset=utf-8', 'x-optimizer-call-id': ctx.id });
    body.push(Buffer.from(event('Os') + event('lo')));
    body.push(Buffer.from('data: [DONE]\n\n'));
    body.end();
    const { pieces, end } = await drain(relay.pieces);
    expect(pieces).toEqual([event('Os') + event('lo')]); // two events of one read: one piece
    expect(end).toMatchObject({ kind: 'streamed', status: 200, errorCode: null, failure: null, vendorStatus: 200 });
    expect(end.usage.estimated).toBe(true); // the vendor sent no usage chunk: counted here
  });

  it('stops reading the vendor while the client has not taken what waits, and reads on once it has', async () => {
    const { ctx, d, body, flowing } = dispatchedStream();
    const relay = relayStream(ctx, d, () => 5, new AbortController().signal);
    const first = relay.pieces.next(); // the transport asks for a piece, then does not come back
    for (let i = 0; i < 40; i++) body.push(Buffer.from(event('x'.repeat(4096))));
    await first;
    expect(flowing()).toBe(false);
    body.push(Buffer.from('data: [DONE]\n\n'));
    body.end();
    const { pieces, end } = await drain(relay.pieces);
    expect(pieces.length).toBe(39); // the first of the 40 was taken above
    expect(flowing()).toBe(true);
    expect(end.status).toBe(200);
  });

  it('ends as 499 when the client has gone, and as a failure when the vendor stops part-way', async () => {
    const gone = new AbortController();
    const left = dispatchedStream();
    const relay = relayStream(left.ctx, left.d, () => 5, gone.signal);
    left.body.push(Buffer.from(event('O')));
    gone.abort();
    left.body.fail(new Error('aborted'));
    expect((await drain(relay.pieces)).end).toMatchObject({ status: 499, errorCode: 'client_closed_request' });
    expect(left.d.attempt.outcome).toBe('cancelled');

    const cut = dispatchedStream();
    const cutRelay = relayStream(cut.ctx, cut.d, () => 5, new AbortController().signal);
    cut.body.push(Buffer.from(event('O')));
    cut.body.end(); // no [DONE]
    expect((await drain(cutRelay.pieces)).end).toMatchObject({ status: 502, errorCode: 'upstream_error' });
  });
});
