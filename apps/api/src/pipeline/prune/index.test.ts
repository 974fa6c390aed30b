// Context pruning: its invariants as properties over generated conversations (fast-check, fixed
// seed), and the saving on realistic agent traces; each transform on examples is in transforms.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asst, image, lines, RUNS, SEED, sys, tc, tool, user } from '../../../test/support/conversation.ts';
import {
  droppableTurns,
  estimateTokens,
  prune,
  type ContentPart,
  type Message,
  type PruneOptions,
  type PruneResult,
} from './index.ts';


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

const TRACES = join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'agent-traces');
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
