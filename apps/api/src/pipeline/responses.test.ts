// A completion's Reply in the Responses API's shape: a whole JSON answer becomes the Responses
// object, a stream (whole or live) the typed events, piece by piece; anything else passes.
import { describe, expect, it } from 'vitest';
import { readResponsesRequest } from '../wire/responses-request.ts';
import { bodyText, type Reply } from './reply.ts';
import { asResponses } from './responses.ts';

const { echo } = readResponsesRequest({ model: 'gpt-4.1-mini', input: 'hi' });
const headers = (type: string) => ({ 'content-type': type, 'x-optimizer-call-id': 'call_1' });
const completion = JSON.stringify({ id: 'c1', object: 'chat.completion', created: 1, model: 'gpt-4.1-mini', choices: [{ index: 0, message: { role: 'assistant', content: 'Oslo' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }, optimizer: { cache_hit: false } });
const chunk = (delta: object, finish: string | null = null) => `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1-mini', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

describe('asResponses', () => {
  it('rewrites a whole JSON answer into the Responses object', () => {
    const out = JSON.parse(asResponses({ status: 200, headers: headers('application/json'), body: completion }, echo).body as string) as { object: string; output_text?: string; output: unknown[] };
    expect(out.object).toBe('response');
    expect(JSON.stringify(out.output)).toContain('Oslo');
  });

  it("rewrites a live stream's pieces into the typed events as they come, its last piece too", async () => {
    async function* pieces(): AsyncGenerator<string, string, undefined> {
      yield chunk({ role: 'assistant', content: '' });
      yield chunk({ content: 'Oslo' });
      return `${chunk({}, 'stop')}data: [DONE]\n\n`;
    }
    let after = 0;
    const reply = asResponses({ status: 200, headers: headers('text/event-stream; charset=utf-8'), body: pieces(), after: () => void after++ }, echo);
    const text = await bodyText(reply);
    expect(text).toMatch(/^event: response\.created\n/);
    expect(text).toContain('"delta":"Oslo"');
    expect(text).toMatch(/event: response\.completed\n/);
    reply.after?.();
    expect(after).toBe(1);
  });

  it('passes anything but a 200 as it is', () => {
    const reply: Reply = { status: 201, headers: headers('application/json'), body: '{"x":1}' };
    expect(asResponses(reply, echo)).toBe(reply);
  });
});
