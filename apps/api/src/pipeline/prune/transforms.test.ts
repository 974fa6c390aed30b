// Context pruning: each transform on examples (the invariants over generated conversations and
// the saving on agent traces are in index.test.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asst, image, lines, RUNS, SEED, sys, tc, tool, user } from '../../../test/support/conversation.ts';
import {
  collapseWhitespace,
  droppableTurns,
  estimateTokens,
  prune,
  prunedMarker,
  sameOutputMarker,
  trimText,
  type ContentPart,
  type Message,
} from './index.ts';


describe('estimateTokens', () => {
  it('counts chars/4 per text, 4 per message, 3 per request, 85 per image and the tool_calls JSON', () => {
    expect(estimateTokens([])).toBe(3);
    expect(estimateTokens([user('12345678')])).toBe(3 + 4 + 2);
    expect(estimateTokens([user('123456789')])).toBe(3 + 4 + 3);
    expect(estimateTokens([user([{ type: 'text', text: '1234' }, image(1)])])).toBe(3 + 4 + 1 + 85);
    const calls = [tc('c1')];
    expect(estimateTokens([asst(null, calls)])).toBe(3 + 4 + Math.ceil(JSON.stringify(calls).length / 4));
    expect(estimateTokens([{ role: 'user', name: 'ann', content: '' }])).toBe(3 + 4 + 1);
  });
});

describe('collapse-whitespace', () => {
  it('strips trailing spaces, collapses inner space runs and blank-line runs', () => {
    expect(collapseWhitespace('a  b   c  \n\n\n\nd\t \ne')).toBe('a b c\n\nd\ne');
  });

  it('keeps indentation, including after a cat -n line number', () => {
    const text = '    12\t    return  x;\n  - item:   one';
    expect(collapseWhitespace(text)).toBe('    12\t    return x;\n  - item: one');
  });

  it('leaves ``` fences (and an unclosed one) byte for byte', () => {
    const fenced = 'intro  text\n```py\ndef f():\n\n\n\n    return  1   \n```\nafter   fence\n\n\n\n```\nunclosed    \n\n\n';
    expect(collapseWhitespace(fenced)).toBe('intro text\n```py\ndef f():\n\n\n\n    return  1   \n```\nafter fence\n\n```\nunclosed    \n\n\n');
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', ' ', '  ', '\t', '\n', '\r\n', '```', '~~~', 'x y'), { maxLength: 60 }), (parts) => {
        const once = collapseWhitespace(parts.join(''));
        expect(collapseWhitespace(once)).toBe(once);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('applies to user, assistant and tool text but not to prompts, the last user message or image parts', () => {
    const img = image(1);
    const input = [sys('be   brief\n\n\n\n'), user([{ type: 'text', text: 'look  at  this' }, img]), asst('sure  thing  '), user('and   this  ')];
    const r = prune(input);
    expect(r.messages).toEqual([input[0], user([{ type: 'text', text: 'look at this' }, img]), asst('sure thing'), input[3]]);
    expect(r.steps.map((s) => s.transform)).toEqual(['collapse-whitespace']);
    expect(r.messages[1]!.content![1]).toBe(img);
  });
});

describe('dedupe-messages', () => {
  it('collapses exact consecutive duplicates to one, but never prompts or tool calls', () => {
    const input = [sys('s'), sys('s'), user('hi'), user('hi'), asst('hello'), asst('hello'), user('bye')];
    const r = prune(input);
    expect(r.messages).toEqual([sys('s'), sys('s'), user('hi'), asst('hello'), user('bye')]);
    expect(r.steps).toEqual([{ transform: 'dedupe-messages', tokensRemoved: 4 + 1 + (4 + 2), detail: '2 repeated consecutive messages removed' }]);
  });

  it('keeps tool messages with different ids, and messages differing in name', () => {
    const input = [
      user('q'),
      asst(null, [tc('a'), tc('b')]),
      tool('a', 'same'),
      tool('b', 'same'),
      { role: 'user', name: 'ann', content: 'x' },
      { role: 'user', name: 'bob', content: 'x' },
      user('last'),
    ];
    expect(prune(input).messages).toEqual(input);
  });
});

describe('dedupe-tool-outputs', () => {
  const out = lines(20, 'match');
  it('replaces a repeated output with a pointer to the first call', () => {
    const input = [
      user('find it'),
      asst(null, [tc('call_1', 'grep')]),
      tool('call_1', out),
      asst(null, [tc('call_2', 'grep')]),
      tool('call_2', out),
      asst('done'),
      user('thanks'),
    ];
    const r = prune(input);
    expect(r.messages[4]).toEqual(tool('call_2', '[same output as the tool call call_1 above]'));
    expect(sameOutputMarker('call_1')).toBe('[same output as the tool call call_1 above]');
    expect(r.messages[2]).toBe(input[2]);
    expect(r.steps).toEqual([
      { transform: 'dedupe-tool-outputs', tokensRemoved: Math.ceil(out.length / 4) - 11, detail: '1 repeated tool output replaced by a pointer to its first copy' },
    ]);
  });

  it('keeps short repeats (the marker would be longer) and the last message', () => {
    const input = [user('go'), asst(null, [tc('a')]), tool('a', 'ok'), asst(null, [tc('b')]), tool('b', 'ok'), asst(null, [tc('c')]), tool('c', out), asst(null, [tc('d')]), tool('d', out)];
    expect(prune(input).messages).toEqual(input);
  });
});

describe('trim-old-tool-outputs', () => {
  const big = lines(400);
  it('cuts old outputs past the budget to head and tail around a marker, keeping the last N whole', () => {
    const input = [
      user('go'),
      asst(null, [tc('a')]),
      tool('a', `${big}\nA`),
      asst(null, [tc('b')]),
      tool('b', `${big}\nB`),
      asst(null, [tc('c')]),
      tool('c', `${big}\nC`),
      asst('done'),
      user('next'),
    ];
    const r = prune(input, { toolOutputBudgetTokens: 500, keepRecentToolOutputs: 2 });
    const cut = r.messages[2]!.content as string;
    expect(cut.startsWith('row 0: ')).toBe(true);
    expect(cut.endsWith('\nA')).toBe(true);
    expect(cut).toMatch(/\n\[… \d+ tokens pruned …\]\n/);
    expect(Math.ceil(cut.length / 4)).toBeLessThanOrEqual(500);
    expect(cut.length).toBeGreaterThan(0.7 * 500 * 4);
    expect(r.messages[4]).toBe(input[4]);
    expect(r.messages[6]).toBe(input[6]);
    expect(r.steps.map((s) => s.transform)).toEqual(['trim-old-tool-outputs']);
    expect(r.steps[0]!.detail).toBe('1 old tool output cut to head and tail (budget 500 tokens, last 2 kept whole)');
  });

  it('the marker counts the tokens cut; a cut text fits the budget and is not cut again', () => {
    const text = 'h'.repeat(5000) + 't'.repeat(5000);
    const cut = trimText(text, 100)!;
    const n = Number(/\[… (\d+) tokens pruned …\]/.exec(cut)![1]);
    const kept = cut.replace(`\n${prunedMarker(n)}\n`, '');
    expect(n).toBe(Math.ceil((text.length - kept.length) / 4));
    expect(text.startsWith(kept.slice(0, 100)) && text.endsWith(kept.slice(-100))).toBe(true);
    expect(cut.length).toBeLessThanOrEqual(400);
    expect(trimText(cut, 100)).toBeNull();
    expect(trimText('short', 100)).toBeNull();
    expect(trimText(text, 3)).toBeNull();
  });

  it('never splits a surrogate pair', () => {
    const cut = trimText(`a${'😀'.repeat(3000)}b`, 100)!;
    expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });

  it('leaves outputs with image parts whole', () => {
    const content: ContentPart[] = [{ type: 'text', text: big }, image(2)];
    const input = [user('go'), asst(null, [tc('a')]), tool('a', content), asst(null, [tc('b')]), tool('b', 'x'), user('next')];
    expect(prune(input, { toolOutputBudgetTokens: 50, keepRecentToolOutputs: 0 }).messages[2]).toBe(input[2]);
  });
});

describe('drop-oldest-turns', () => {
  const pad = (tag: string): string => `${tag}${' word'.repeat(200)}`;
  const conversation: Message[] = [
    sys('system prompt'),
    user(pad('q1')),
    asst(null, [tc('t1'), tc('t2')]),
    tool('t1', pad('r1')),
    tool('t2', pad('r2')),
    asst(pad('a1')),
    { role: 'developer', content: 'mid-conversation instruction' },
    user(pad('q2')),
    asst(pad('a2')),
    user(pad('q3')),
    asst(null, [tc('t3')]),
    tool('t3', pad('r3')),
  ];

  it('lists whole exchanges, oldest first, never the last user turn nor the prompts', () => {
    expect(droppableTurns(conversation)).toEqual([[1, 2, 3, 4, 5], [7, 8]]);
    expect(droppableTurns([sys('s'), asst('hi'), user('q')])).toEqual([[1]]);
    expect(droppableTurns([sys('s'), asst('no user')])).toEqual([]);
  });

  it('drops the fewest oldest turns that fit, keeping calls with their results and the prompts', () => {
    const full = estimateTokens(conversation);
    const r = prune(conversation, { contextTokens: full - 300 });
    expect(r.messages).toEqual([conversation[0], conversation[6], ...conversation.slice(7)]);
    expect(r.steps).toEqual([
      { transform: 'drop-oldest-turns', tokensRemoved: r.tokensBefore - r.tokensAfter, detail: `1 oldest turn dropped (5 messages) to fit contextTokens ${full - 300}` },
    ]);
    const tight = prune(conversation, { contextTokens: 10 });
    expect(tight.messages).toEqual([conversation[0], conversation[6], ...conversation.slice(9)]);
    expect(tight.steps[0]!.detail).toMatch(/^2 oldest turns dropped \(7 messages\) to fit contextTokens 10: still above it/);
    expect(prune(conversation, { contextTokens: full }).messages).toEqual(conversation);
  });

  it('rejects nonsensical options', () => {
    expect(() => prune(conversation, { contextTokens: 0 })).toThrow(RangeError);
    expect(() => prune(conversation, { toolOutputBudgetTokens: -1 })).toThrow(RangeError);
    expect(() => prune(conversation, { keepRecentToolOutputs: 1.5 })).toThrow(RangeError);
  });
});
