// Stage: prune. A routed call's prompt loses what repeats or no longer fits (the prune
// transforms, prune/), the client's messages kept for exploration and the tokens removed noted
// (the baseline is priced as if they were sent); pruning that would save too little is skipped.
import { describe, expect, it } from 'vitest';
import { pruneStage } from './prune-stage.ts';
import { callContext, profile } from '../../test/support/pipeline.ts';

const output = 'line of a long tool output\n'.repeat(80);
const repeated = () => [
  { role: 'system', content: 'You are an agent.' },
  { role: 'user', content: 'read the file' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{}' } }] },
  { role: 'tool', tool_call_id: 'c1', content: output },
  { role: 'assistant', content: null, tool_calls: [{ id: 'c2', type: 'function', function: { name: 'read', arguments: '{}' } }] },
  { role: 'tool', tool_call_id: 'c2', content: output },
  { role: 'user', content: 'now summarise it' },
];

function routedCall(messages: unknown[]) {
  const ctx = callContext({ model: 'auto', messages });
  ctx.route = { model: 'm', provider: 'openai', requestedProvider: 'openai', profile: undefined, pinned: false, baselineModel: 'big', baselineProfile: undefined, reasons: [], failover: [] };
  return ctx;
}

describe('pruneStage', () => {
  it("prunes a repeated tool output, keeping the client's messages and the tokens it removed", () => {
    const messages = repeated();
    const ctx = routedCall(messages);
    pruneStage(ctx, profile('big', 'openai'));
    const sent = ctx.body.messages as { role: string; content: string | null }[];
    expect(sent).toHaveLength(messages.length); // a pointer replaces the repeat: the call/result pairing stays
    expect(sent[5]!.content).not.toBe(output);
    expect(sent[5]!.content!.length).toBeLessThan(output.length / 10);
    expect(sent.at(-1)).toEqual(messages.at(-1));
    expect(ctx.unprunedMessages).toBe(messages);
    expect(ctx.prunedTokens).toBeGreaterThan(100);
    expect(ctx.route!.reasons.some((r) => r.startsWith('pruned (dedupe-tool-outputs)'))).toBe(true);
  });

  it('leaves a call alone when pruning would remove less than the share the step asks for', () => {
    const ctx = routedCall(repeated());
    const body = ctx.body;
    pruneStage(ctx, profile('big', 'openai'), 0.9);
    expect(ctx.body).toBe(body);
    expect(ctx.prunedTokens).toBe(0);
    expect(ctx.unprunedMessages).toBeUndefined();
  });

  it('leaves a short conversation alone', () => {
    const ctx = routedCall([{ role: 'user', content: 'hi   there\n\n\n\nfriend' }, { role: 'assistant', content: 'hello' }]);
    const body = ctx.body;
    pruneStage(ctx, undefined);
    expect(ctx.body).toBe(body);
    expect(ctx.route!.reasons).toEqual([]);
  });
});
