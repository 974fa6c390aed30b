// A streamed answer put back together, so the caches can store it like a non-stream one.
import { describe, expect, it } from 'vitest';
import { completionFromChunks } from './assemble.ts';
import { cacheable, completionAsChunks } from './cache.ts';

const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1700000000, model: 'gpt-4o-mini' };
const chunk = (choice: Record<string, unknown>) => JSON.stringify({ ...base, choices: [{ index: 0, finish_reason: null, ...choice }] });

describe('completionFromChunks', () => {
  it('joins content deltas and keeps the last finish reason', () => {
    const text = completionFromChunks([chunk({ delta: { role: 'assistant', content: '' } }), chunk({ delta: { content: 'Hel' } }), chunk({ delta: { content: 'lo.' } }), chunk({ delta: {}, finish_reason: 'stop' })], { prompt_tokens: 5, completion_tokens: 2 })!;
    expect(JSON.parse(text)).toMatchObject({ id: 'chatcmpl-1', object: 'chat.completion', model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: 'Hello.' }, finish_reason: 'stop' }], usage: { total_tokens: 7 } });
  });

  it('joins streamed tool-call arguments per index, with their ids and names', () => {
    const text = completionFromChunks([
      chunk({ delta: { role: 'assistant', tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } }] } }),
      chunk({ delta: { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] } }),
      chunk({ delta: { tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{}' } }] } }),
      chunk({ delta: { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] } }),
      chunk({ delta: {}, finish_reason: 'tool_calls' }),
    ])!;
    const message = JSON.parse(text).choices[0].message;
    expect(message.content).toBeNull();
    expect(message.tool_calls).toEqual([
      { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{}' } },
    ]);
  });

  it('round-trips what the cache replays as a stream', () => {
    const completion = JSON.stringify({ id: 'x', object: 'chat.completion', created: 1, model: 'm', system_fingerprint: null, choices: [{ index: 0, message: { role: 'assistant', content: 'Yes.' }, finish_reason: 'stop' }] });
    expect(JSON.parse(completionFromChunks(completionAsChunks(completion))!)).toEqual(JSON.parse(completion));
  });

  it('gives nothing for several choices or a chunk that does not parse, and a truncated answer is not cacheable', () => {
    expect(completionFromChunks([chunk({ delta: { content: 'a' } }), JSON.stringify({ ...base, choices: [{ index: 1, delta: { content: 'b' } }] })])).toBeNull();
    expect(completionFromChunks([chunk({ delta: { content: 'a' } }), '{not json'])).toBeNull();
    expect(completionFromChunks([])).toBeNull();
    const cut = completionFromChunks([chunk({ delta: { content: 'a' } }), chunk({ delta: {}, finish_reason: 'length' })])!;
    expect(cacheable({ body: {} } as never, cut)).toBe(false);
  });
});
