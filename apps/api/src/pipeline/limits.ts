// A model's hard size limits (catalog `context_length`, `max_output_tokens`) against one
// request: a model whose window cannot hold the prompt and the output the request asks for,
// or that cannot write as many tokens as `max_tokens` asks, is never routed to. The prompt is
// counted with the tokenizer only when its UTF-8 size could exceed a window (a token covers at
// least one byte), so most calls never pay for a count.
import type { ModelProfile } from '@optimizer/schema';
import { countPromptTokens, promptTokenBound } from './tokens.ts';

export interface RequestSize {
  /** The request's output cap (`max_completion_tokens`, else `max_tokens`), when it sets one. */
  maxOutput: number | null;
  /** The prompt's tokens, counted on first need. */
  promptTokens(): number;
  /** An upper bound of the prompt's tokens, without counting (a token is at least a byte). */
  promptBound: number;
}

export function requestSize(body: Record<string, unknown>): RequestSize {
  const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
  const cap = body.max_completion_tokens ?? body.max_tokens;
  let counted: number | null = null;
  return {
    maxOutput: typeof cap === 'number' && Number.isFinite(cap) && cap > 0 ? cap : null,
    promptBound: promptTokenBound(messages),
    promptTokens: () => (counted ??= countPromptTokens(messages)),
  };
}

/** Why `p` cannot take this request (a reason for the call's record), or null when it fits. */
export function sizeMisfit(p: ModelProfile, size: RequestSize): string | null {
  if (size.maxOutput !== null && p.max_output_tokens > 0 && p.max_output_tokens < size.maxOutput) {
    return `${p.model} writes at most ${p.max_output_tokens} tokens, the request asks for up to ${size.maxOutput}`;
  }
  if (p.context_length <= 0) return null;
  const output = size.maxOutput ?? 0;
  if (size.promptBound + output <= p.context_length) return null;
  const prompt = size.promptTokens();
  if (prompt + output <= p.context_length) return null;
  return `${p.model}'s context of ${p.context_length} tokens cannot hold the prompt's ~${prompt}${output ? ` plus ${output} output` : ''}`;
}
