// Converse usage → the gateway's Usage and OpenAI's usage object. Converse counts
// cache reads and writes apart from inputTokens, so the prompt total is their sum;
// it reports no reasoning count (thinking is inside outputTokens).
import type { Usage } from '../../wire/usage.ts';
import type { TokenUsage } from './wire.ts';

const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

export function usageFromConverse(u: TokenUsage | undefined | null): Usage | null {
  if (!u || typeof u !== 'object' || (typeof u.inputTokens !== 'number' && typeof u.outputTokens !== 'number')) return null;
  const cachedTokens = n(u.cacheReadInputTokens);
  const cacheWriteTokens = n(u.cacheWriteInputTokens);
  return {
    promptTokens: n(u.inputTokens) + cachedTokens + cacheWriteTokens,
    completionTokens: n(u.outputTokens),
    cachedTokens,
    cacheWriteTokens,
    reasoningTokens: 0,
    estimated: false,
  };
}

/** OpenAI's usage object (cache writes ride along in prompt_tokens_details, as usageFromOpenAI reads them). */
export function openAIUsage(u: Usage) {
  return {
    prompt_tokens: u.promptTokens,
    completion_tokens: u.completionTokens,
    total_tokens: u.promptTokens + u.completionTokens,
    prompt_tokens_details: { cached_tokens: u.cachedTokens, cache_write_tokens: u.cacheWriteTokens },
    completion_tokens_details: { reasoning_tokens: u.reasoningTokens },
  };
}
