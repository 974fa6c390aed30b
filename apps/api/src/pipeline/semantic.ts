// Stage: cache, the semantic part's request side — whether a call may be answered by a
// cached answer to a similar question, and what it must share with it (design §6
// guards). Pure and cheap; only reached when the tenant turned `cache.semantic` on.
import { createHash } from 'node:crypto';
import type { SemanticQuery } from '../cache/semantic-cache.ts';
import { stepIdentity } from '../optimizer/fingerprint.ts';
import { canonical } from './canonical.ts';
import type { CallContext } from './context.ts';

/** Longer questions are not matched: the embedder reads the first 256 tokens only. */
export const MAX_QUESTION_CHARS = 1_000;

/** Fields that do not shape the answer (as for the exact cache). */
const IGNORED = new Set(['stream', 'stream_options', 'user', 'metadata', 'store', 'service_tier', 'safety_identifier', 'prompt_cache_key']);

/** The text of a user message when it is text only (a string, or text parts); null otherwise. */
function textOnly(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const parts: string[] = [];
  for (const p of content as { type?: unknown; text?: unknown }[]) {
    if (!p || p.type !== 'text' || typeof p.text !== 'string') return null; // an image, audio or file: not a question we can compare
    parts.push(p.text);
  }
  return parts.join('\n');
}

/**
 * The semantic query of a call, or null with the reason it is not eligible: single-turn
 * calls (system or developer messages, then one user message), or any call whose
 * annotation opts in with `cache.semantic: true` (then every message before the last
 * user turn must match exactly). The question is the last user turn; everything else
 * that shapes the answer — earlier messages, tools, tool_choice, response_format,
 * sampling params, the model or `auto` — is hashed into the scope.
 */
export function semanticQuery(ctx: CallContext, tenantThreshold: number | undefined): { query: SemanticQuery | null; why: string } {
  const opt = ctx.annotation?.cache?.semantic;
  if (opt === false) return { query: null, why: 'the request opted out' };
  const messages = Array.isArray(ctx.body.messages) ? (ctx.body.messages as { role?: unknown; content?: unknown }[]) : [];
  const last = messages.at(-1);
  if (!last || last.role !== 'user') return { query: null, why: 'the last message is not a user turn' };
  const earlier = messages.slice(0, -1);
  if (opt !== true && earlier.some((m) => m.role !== 'system' && m.role !== 'developer')) return { query: null, why: 'multi-turn and the step has not opted in' };
  const n = ctx.body.n as number | undefined;
  if (n !== undefined && n !== null && n > 1) return { query: null, why: 'n > 1' };
  const question = textOnly(last.content)?.trim();
  if (!question) return { query: null, why: 'the question is not text' };
  if (question.length > MAX_QUESTION_CHARS) return { query: null, why: `the question is over ${MAX_QUESTION_CHARS} characters` };

  const shaping: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(ctx.body)) if (!IGNORED.has(k) && k !== 'messages') shaping[k] = v;
  shaping.messages = earlier;
  const scope = createHash('sha256').update(canonical(shaping)).digest('base64url');
  const step = ctx.optimizer?.fingerprint ?? stepIdentity(ctx.principal.workflowId, ctx.annotation, ctx.body).fingerprint;
  const requested = ctx.annotation?.cache?.semantic_threshold;
  const threshold = requested === undefined ? tenantThreshold : tenantThreshold === undefined ? requested : Math.max(requested, tenantThreshold);
  return { query: { accountId: ctx.principal.accountId, step, scope, question, threshold }, why: '' };
}
