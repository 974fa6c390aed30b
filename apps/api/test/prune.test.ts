// Context pruning: each transform on examples, the invariants as properties over
// generated conversations (fast-check, fixed seed), and the saving on realistic agent traces.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
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
  type PruneOptions,
  type PruneResult,
  type ToolCall,
} from '../src/pipeline/prune/index.ts';

const SEED = 20_250_611;
const RUNS = 600;

function tc(id: string, name = 'read_file', args: unknown = { path: 'src/a.ts' }): ToolCall {
  return { id, type: 'function', function: { name, arguments: JSON.stringify(args) } };
}
const sys = (content: string): Message => ({ role: 'system', content });
const user = (content: Message['content']): Message => ({ role: 'user', content });
const asst = (content: string | null, calls?: ToolCall[]): Message => (calls ? { role: 'assistant', content, tool_calls: calls } : { role: 'assistant', content });
const tool = (id: string, content: Message['content']): Message => ({ role: 'tool', tool_call_id: id, content });
const image = (n: number): ContentPart => ({ type: 'image_url', image_url: { url: `data:image/png;base64,iVBORw0KGgo${n}`, detail: 'low' } });
const lines = (n: number, tag = 'row'): string => Array.from({ length: n }, (_, i) => `${tag} ${i}: ${'lorem ipsum dolor '.repeat(3).trimEnd()}`).join('\n');

function isInstruction(m: Message): boolean {
  return m.role === 'system' || m.role === 'developer';
}
function lastUserOf(ms: readonly Message[]): Message | undefined {
  return ms.findLast((m) => m.role === 'user');
}
function nonText(content: Message['content']): ContentPart[] {
  return Array.isArray(content) ? content.filter((p) => p.type !== 'text') : [];
}
function withoutContent(m: Message): Record<string, unknown> {
  const { content: _content, ...rest } = m;
  return rest;
}

/** Every invariant pruning promises, checked on one input, its options and its result. */
function checkInvariants(input: Message[], opts: PruneOptions, r: PruneResult): void {
  const out = r.messages;

  // System/developer prompts: all kept, byte-identical, in order.
  expect(out.filter(isInstruction).map((m) => JSON.stringify(m))).toEqual(input.filter(isInstruction).map((m) => JSON.stringify(m)));
  // The last user message and the last message: byte-identical.
  if (input.length > 0) expect(JSON.stringify(out.at(-1))).toBe(JSON.stringify(input.at(-1)));
  expect(JSON.stringify(lastUserOf(out))).toBe(JSON.stringify(lastUserOf(input)));

  // Never reordered: the output is a subsequence of the input, each kept message with the
  // same fields but content and the same image (and other non-text) parts.
  let j = 0;
  for (const m of out) {
    while (
      j < input.length &&
      !(
        JSON.stringify(withoutContent(input[j]!)) === JSON.stringify(withoutContent(m)) &&
        JSON.stringify(nonText(input[j]!.content)) === JSON.stringify(nonText(m.content))
      )
    ) {
      j++;
    }
    expect(j, `output message ${JSON.stringify(m).slice(0, 200)} has no counterpart in order`).toBeLessThan(input.length);
    if (m.role !== 'user' && m.role !== 'assistant' && m.role !== 'tool') expect(m).toEqual(input[j]);
    j++;
  }

  // Tool calls and their results stay together: every result answers a call of the
  // assistant message just before its run of tool messages, and every call is answered.
  let callsOpen = new Set<string>();
  for (const m of out) {
    if (m.role === 'tool') {
      expect(callsOpen.has(m.tool_call_id!), `orphan tool message ${m.tool_call_id}`).toBe(true);
      callsOpen.delete(m.tool_call_id!);
      continue;
    }
    expect([...callsOpen], 'tool calls without results').toEqual([]);
    callsOpen = new Set((m.tool_calls ?? []).map((c) => c.id));
  }
  expect([...callsOpen], 'tool calls without results').toEqual([]);

  // Accounting.
  expect(r.tokensBefore).toBe(estimateTokens(input));
  expect(r.tokensAfter).toBe(estimateTokens(out));
  expect(r.steps.reduce((s, x) => s + x.tokensRemoved, 0)).toBe(r.tokensBefore - r.tokensAfter);
  for (const s of r.steps) expect(s.tokensRemoved).toBeGreaterThanOrEqual(0);
  expect(new Set(r.steps.map((s) => s.transform)).size).toBe(r.steps.length);
  const listed = new Set(r.steps.map((s) => s.transform));
  if (r.steps.length === 0) expect(out).toEqual(input);
  if (out.length < input.length) expect(listed.has('dedupe-messages') || listed.has('drop-oldest-turns')).toBe(true);
  const texts = (ms: Message[]): string => ms.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? ''))).join('\n');
  const count = (s: string, re: RegExp): number => (s.match(re) ?? []).length;
  if (count(texts(out), /\[… \d+ tokens pruned …\]/g) > count(texts(input), /\[… \d+ tokens pruned …\]/g)) expect(listed.has('trim-old-tool-outputs')).toBe(true);
  if (count(texts(out), /\[same output as the tool call /g) > count(texts(input), /\[same output as the tool call /g)) expect(listed.has('dedupe-tool-outputs')).toBe(true);

  // The context window: met, or nothing but the last user turn (and the prompts) is left.
  const limit = opts.contextTokens;
  if (limit !== undefined && r.tokensAfter > limit) {
    const lastUser = out.findLastIndex((m) => m.role === 'user');
    out.forEach((m, i) => {
      if (!isInstruction(m)) expect(i).toBeGreaterThanOrEqual(lastUser);
    });
  }
  // Turns are dropped only past the window, the fewest that fit: the result is the
  // in-place transforms on the input minus its k oldest turns, and k − 1 were too few.
  const drop = r.steps.find((s) => s.transform === 'drop-oldest-turns');
  expect(drop === undefined || r.steps[0] === drop).toBe(true);
  if (limit !== undefined && drop) {
    const { contextTokens: _c, ...inPlace } = opts;
    expect(prune(input, inPlace).tokensAfter).toBeGreaterThan(limit);
    const k = Number(/^(\d+) oldest turns? dropped/.exec(drop.detail)![1]);
    const turns = droppableTurns(input);
    const without = (n: number): Message[] => {
      const gone = new Set(turns.slice(0, n).flat());
      return input.filter((_, i) => !gone.has(i));
    };
    expect(k).toBeGreaterThanOrEqual(1);
    expect(k).toBeLessThanOrEqual(turns.length);
    expect(prune(without(k), inPlace).messages).toEqual(out);
    expect(prune(without(k - 1), inPlace).tokensAfter).toBeGreaterThan(limit);
  }
}

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

// ---------- properties over generated conversations ----------

const LONG = [lines(120, 'log'), lines(300, 'file'), `${'x'.repeat(3000)}\n\n\n\n${'y  '.repeat(900)}`, lines(60, '```')];
const fragment = fc.constantFrom('alpha', 'beta', ' ', '   ', '\t', '\n', '\n\n\n\n', ' \n', '```', '```ts\n', 'é', '😀', 'word  word', '[same output as the tool call c0 above]', '[… 12 tokens pruned …]');
const text = fc.array(fragment, { maxLength: 24 }).map((xs) => xs.join(''));
const longText = fc.oneof(fc.constantFrom(...LONG), fc.tuple(text, fc.integer({ min: 2, max: 80 })).map(([t, n]) => `${t}\n`.repeat(n)));
const toolOutput = fc.oneof(
  { arbitrary: fc.constantFrom('ok', 'no matches', LONG[0]!, LONG[1]!, `{"status": "shipped",   "items": 3}`), weight: 3 },
  { arbitrary: text, weight: 2 },
  { arbitrary: longText, weight: 2 },
  { arbitrary: fc.constant([{ type: 'text', text: LONG[0]! }] as ContentPart[]), weight: 1 },
);
const imagePart = fc.integer({ min: 0, max: 3 }).map(image);
const userContent = fc.oneof(
  { arbitrary: text, weight: 3 },
  { arbitrary: longText, weight: 1 },
  { arbitrary: fc.tuple(text, imagePart).map(([t, img]): ContentPart[] => [{ type: 'text', text: t }, img]), weight: 1 },
);
const step = fc.oneof(
  fc.record({ kind: fc.constant('say' as const), text: fc.oneof(text, longText), repeat: fc.boolean() }),
  fc.record({ kind: fc.constant('tools' as const), say: fc.option(text, { nil: null }), outputs: fc.array(toolOutput, { minLength: 1, maxLength: 3 }) }),
);
const turn = fc.record({
  user: userContent,
  repeat: fc.oneof({ arbitrary: fc.constant(false), weight: 4 }, { arbitrary: fc.constant(true), weight: 1 }),
  steps: fc.array(step, { maxLength: 4 }),
  developer: fc.option(text, { freq: 6, nil: null }),
});
const conversationArb = fc
  .record({
    system: fc.option(text, { freq: 6, nil: null }),
    greeting: fc.option(text, { freq: 4, nil: null }),
    turns: fc.array(turn, { minLength: 1, maxLength: 7 }),
  })
  .map(({ system, greeting, turns }) => {
    let n = 0;
    const ms: Message[] = [];
    if (system !== null) ms.push(sys(system));
    if (greeting !== null) ms.push(asst(greeting));
    for (const t of turns) {
      if (t.developer !== null) ms.push({ role: 'developer', content: t.developer });
      ms.push(user(t.user));
      if (t.repeat) ms.push(user(t.user));
      for (const s of t.steps) {
        if (s.kind === 'say') {
          ms.push(asst(s.text));
          if (s.repeat) ms.push(asst(s.text));
        } else {
          const calls = s.outputs.map(() => tc(`c${n++}`, 'lookup', { n }));
          ms.push(asst(s.say, calls));
          s.outputs.forEach((o, i) => ms.push(tool(calls[i]!.id, o)));
        }
      }
    }
    return ms;
  });
const optionsArb = fc
  .record({
    contextTokens: fc.option(fc.integer({ min: 20, max: 4000 }), { nil: undefined }),
    toolOutputBudgetTokens: fc.option(fc.integer({ min: 1, max: 400 }), { nil: undefined }),
    keepRecentToolOutputs: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
  })
  .map((o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as PruneOptions);

describe('prune, on generated conversations', () => {
  it(`holds every invariant, is deterministic and idempotent (${RUNS} runs, seed ${SEED})`, () => {
    let changed = 0;
    let dropped = 0;
    fc.assert(
      fc.property(conversationArb, optionsArb, (input, opts) => {
        const snapshot = structuredClone(input);
        const r = prune(input, opts);
        expect(input).toEqual(snapshot); // pure: the input is not mutated
        checkInvariants(input, opts, r);
        expect(prune(structuredClone(input), opts)).toEqual(r); // deterministic
        const again = prune(r.messages, opts);
        expect(again.messages).toEqual(r.messages); // idempotent
        expect(again.steps).toEqual([]);
        if (r.steps.length > 0) changed++;
        if (r.steps.some((s) => s.transform === 'drop-oldest-turns')) dropped++;
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // The generator exercises the transforms, not just the no-op path.
    expect(changed).toBeGreaterThan(RUNS / 2);
    expect(dropped).toBeGreaterThan(RUNS / 20);
  });

  it('with a context window that already fits, drops nothing', () => {
    fc.assert(
      fc.property(conversationArb, optionsArb, (input, opts) => {
        const { contextTokens: _c, ...rest } = opts;
        const free = prune(input, rest);
        expect(prune(input, { ...rest, contextTokens: free.tokensAfter })).toEqual(free);
      }),
      { seed: SEED + 1, numRuns: RUNS },
    );
  });
});

// ---------- realistic agent traces ----------

const TRACES = join(import.meta.dirname, 'fixtures', 'agent-traces');
const traces = readdirSync(TRACES)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(TRACES, f), 'utf8')) as { name: string; description: string; messages: Message[] });

describe('prune, on agent traces', () => {
  it('has 3–5 traces of 20–60 messages', () => {
    expect(traces.length).toBeGreaterThanOrEqual(3);
    expect(traces.length).toBeLessThanOrEqual(5);
    for (const t of traces) expect(t.messages.length, t.name).toBeGreaterThanOrEqual(20);
    for (const t of traces) expect(t.messages.length, t.name).toBeLessThanOrEqual(60);
  });

  it('saves tokens on every trace without breaking an invariant (prints the saving)', () => {
    const rows: string[] = [];
    let before = 0;
    let after = 0;
    for (const t of traces) {
      for (const opts of [{}, { contextTokens: 8000 }] as PruneOptions[]) {
        const r = prune(t.messages, opts);
        checkInvariants(t.messages, opts, r);
        expect(prune(r.messages, opts).messages).toEqual(r.messages);
        expect(r.tokensAfter, t.name).toBeLessThan(r.tokensBefore);
        const pct = (100 * (r.tokensBefore - r.tokensAfter)) / r.tokensBefore;
        const by = r.steps.map((s) => `${s.transform} −${s.tokensRemoved}`).join(', ');
        rows.push(`${t.name.padEnd(15)} ${(opts.contextTokens ? `ctx ${opts.contextTokens}` : 'defaults').padEnd(9)} ${String(t.messages.length).padStart(3)} msgs → ${String(r.messages.length).padStart(3)}  ${String(r.tokensBefore).padStart(6)} → ${String(r.tokensAfter).padStart(6)} tokens  −${pct.toFixed(1).padStart(4)}%  (${by})`);
        if (!opts.contextTokens) {
          before += r.tokensBefore;
          after += r.tokensAfter;
        }
      }
    }
    rows.push(`all traces, defaults: ${before} → ${after} estimated tokens, −${((100 * (before - after)) / before).toFixed(1)}%`);
    console.log(`context pruning on agent traces (estimated tokens):\n${rows.join('\n')}`);
    expect(after).toBeLessThan(before);
  });
});
