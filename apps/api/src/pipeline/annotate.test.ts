// Stage: annotate. It takes what the gateway must understand of the body (model, messages,
// stream), reads the `optimizer` annotation off it and forwards the rest untouched; a body it
// cannot serve is refused 400 invalid_request naming the field.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.ts';
import { serialize } from '../wire/serialized.ts';
import { annotate } from './annotate.ts';
import { newCallContext } from './context.ts';
import { principal } from '../../test/support/pipeline.ts';

const messages = [{ role: 'user', content: 'hi' }];

function refusal(raw: unknown): ApiError {
  try {
    annotate(newCallContext(principal), raw);
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('annotate accepted the body');
}

describe('annotate', () => {
  it('takes the annotation off the body and notes the model, stream and usage request', () => {
    const ctx = newCallContext(principal);
    const raw = { model: 'auto', messages, temperature: 0.2, stream: true, stream_options: { include_usage: true }, optimizer: { step: { id: 'plan' }, run: { id: 'run-1', seq: 1 } } };
    annotate(ctx, raw, JSON.stringify(raw));
    expect(ctx.body).toEqual({ model: 'auto', messages, temperature: 0.2, stream: true, stream_options: { include_usage: true } });
    expect(ctx.annotation).toMatchObject({ step: { id: 'plan' }, run: { id: 'run-1', seq: 1 } });
    expect(ctx.requestedModel).toBe('auto');
    expect(ctx.stream).toBe(true);
    expect(ctx.clientWantsUsage).toBe(true);
    expect(serialize(ctx.body)).toBe(JSON.stringify(ctx.body)); // the client's text held an annotation: not forwarded as is
  });

  it("forwards the client's own text when there is no annotation to remove", () => {
    const ctx = newCallContext(principal);
    const text = '{"model":"gpt-4.1",  "messages":[{"role":"user","content":"hi"}]}';
    annotate(ctx, JSON.parse(text), text);
    expect(ctx.annotation).toBeUndefined();
    expect(serialize(ctx.body)).toBe(text);
    expect(ctx.stream).toBe(false);
    expect(ctx.clientWantsUsage).toBe(false);
  });

  it.each([
    ['an array body', [], 'body'],
    ['no model', { messages }, 'model'],
    ['an empty model', { model: '', messages }, 'model'],
    ['no messages', { model: 'gpt-4.1', messages: [] }, 'messages'],
    ['a message without a role', { model: 'gpt-4.1', messages: [{ role: 'user', content: 'a' }, { content: 'b' }] }, 'messages.1.role'],
    ['a stream that is not a boolean', { model: 'gpt-4.1', messages, stream: 'yes' }, 'stream'],
    ['stream_options that is not an object', { model: 'gpt-4.1', messages, stream_options: 1 }, 'stream_options'],
    ['a NUL in a tool name', { model: 'gpt-4.1', messages, tools: [{ type: 'function', function: { name: 'a\u0000b' } }] }, 'tools.0.function.name'],
    ['a lone surrogate in a message name', { model: 'gpt-4.1', messages: [{ role: 'user', name: 'x\ud800', content: 'a' }] }, 'messages.0.name'],
  ])('refuses %s with 400 invalid_request naming the field', (_what, raw, param) => {
    const e = refusal(raw);
    expect(e.code).toBe('invalid_request');
    expect(e.status).toBe(400);
    expect(e.param).toBe(param);
  });

  it('refuses an annotation that does not parse, naming its field', () => {
    const e = refusal({ model: 'auto', messages, optimizer: { run: { id: 'r', seq: 'first' } } });
    expect(e.code).toBe('invalid_request');
    expect(e.param).toBe('optimizer.run.seq');
  });

  it('lets text a message holds carry what a name may not', () => {
    const ctx = newCallContext(principal);
    annotate(ctx, { model: 'gpt-4.1', messages: [{ role: 'user', content: 'a\u0000b' }] });
    expect((ctx.body.messages as { content: string }[])[0]!.content).toBe('a\u0000b');
  });
});
