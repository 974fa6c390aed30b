// The prompt's size bounds its tokens: the budget stage reserves on that bound and counts with
// the tokenizer only when a reservation on it is refused; the size check of routing likewise.
import { describe, expect, it } from 'vitest';
import { countPromptTokens, promptTokenBound } from './tokens.ts';

const samples: unknown[][] = [
  [],
  [{ role: 'user', content: 'go' }],
  [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Summarise: '.repeat(300) }],
  [{ role: 'user', content: '日本語のテキストを数える。絵文字も 🎉🎉🎉 数える。' }],
  [{ role: 'user', name: 'ann', content: [{ type: 'text', text: 'look at this' }, { type: 'image_url', image_url: { url: 'data:,' } }] }],
  [{ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"q":"ünïcödé"}' } }] }],
  [{ role: 'user', content: 'x'.repeat(5000) }],
  [{ role: 'user', content: 'a1 '.repeat(2000) + '\n\t  ' + '0123456789'.repeat(50) }],
];

describe("a prompt's size", () => {
  it('is never less than its counted tokens, and tracks them within bytes', () => {
    for (const messages of samples) {
      const counted = countPromptTokens(messages);
      const bound = promptTokenBound(messages);
      expect(bound, JSON.stringify(messages).slice(0, 80)).toBeGreaterThanOrEqual(counted);
      const bytes = Buffer.byteLength(JSON.stringify(messages));
      expect(bound).toBeLessThanOrEqual(bytes + 10 * messages.length + 3);
    }
  });
});
