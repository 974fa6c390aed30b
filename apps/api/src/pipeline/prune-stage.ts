// Stage: prune. For routed calls only (a pinned call reaches the vendor exactly as
// sent), deterministic transforms cut input tokens — repeated messages and tool
// outputs, whitespace runs, old tool outputs past a budget, oldest turns past the
// context window — never touching the system prompt, the last user turn or a tool
// call's pairing with its result. Each transform is listed in the call's reasons
// with the tokens it removed; the baseline stays priced at the unpruned input.
import type { ModelProfile } from '@optimizer/schema';
import type { CallContext } from './context.ts';
import { prune, type Message } from './prune/index.ts';

/** Prunes unless that would remove less than `minShare` of the prompt's tokens. */
export function pruneStage(ctx: CallContext, baseline: ModelProfile | undefined, minShare = 0): void {
  const messages = ctx.body.messages as Message[] | undefined;
  if (!Array.isArray(messages) || messages.length < 3) return;
  const reserve = Number(ctx.body.max_completion_tokens ?? ctx.body.max_tokens ?? 0) || 0;
  const result = prune(messages, baseline ? { contextTokens: Math.max(1024, baseline.context_length - reserve) } : {});
  const removed = result.tokensBefore - result.tokensAfter;
  if (removed <= 0 || removed < minShare * result.tokensBefore) return;
  ctx.unprunedMessages = messages;
  ctx.body = { ...ctx.body, messages: result.messages };
  ctx.prunedTokens = removed;
  for (const step of result.steps) ctx.route?.reasons.push(`pruned (${step.transform}): ${step.detail}; ~${step.tokensRemoved} tokens`);
}
