// What a call costs on a model, from the catalog in force at call time (design §5):
// uncached input × input price + cached input × cached price + cache writes × input
// price × write multiplier (× 2 for writes kept an hour) + output (reasoning included)
// × output price.
// Token × USD-per-million = micro-dollars; figures are rounded once, at the end.
import type { ModelProfile } from '@optimizer/schema';

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  cacheWriteTokens: number;
  /** Of cacheWriteTokens, those written to be kept an hour (Anthropic's 1-hour TTL): priced at LONG_CACHE_WRITE_MULTIPLIER. */
  cacheWriteLongTokens?: number;
  reasoningTokens: number;
  /** Counted by us because the vendor reported no usage. */
  estimated: boolean;
}

export const noUsage: Usage = { promptTokens: 0, completionTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, estimated: false };

/** Input price multiple of a cache write kept an hour (Anthropic: 2×, against 1.25× for five minutes). */
export const LONG_CACHE_WRITE_MULTIPLIER = 2;

/** Cost in micro-dollars, unrounded; 0 for a model the catalog does not price. */
export function costMicros(profile: ModelProfile | undefined, u: Usage): number {
  if (!profile) return 0;
  const uncached = Math.max(0, u.promptTokens - u.cachedTokens - u.cacheWriteTokens);
  const long = Math.min(u.cacheWriteLongTokens ?? 0, u.cacheWriteTokens);
  return (
    uncached * profile.input_per_mtok +
    u.cachedTokens * profile.cached_input_per_mtok +
    (u.cacheWriteTokens - long) * profile.input_per_mtok * profile.cache_write_multiplier +
    long * profile.input_per_mtok * LONG_CACHE_WRITE_MULTIPLIER +
    u.completionTokens * profile.output_per_mtok
  );
}

export function micros(x: number): number {
  return Math.round(x);
}

export function usd(microDollars: number): number {
  return Math.round(microDollars) / 1e6;
}

/** Reads OpenAI's usage object (prompt_tokens_details / completion_tokens_details). */
export function usageFromOpenAI(u: unknown): Usage | null {
  if (!u || typeof u !== 'object') return null;
  const o = u as Record<string, any>;
  if (typeof o.prompt_tokens !== 'number' && typeof o.completion_tokens !== 'number') return null;
  return {
    promptTokens: o.prompt_tokens ?? 0,
    completionTokens: o.completion_tokens ?? 0,
    cachedTokens: o.prompt_tokens_details?.cached_tokens ?? 0,
    cacheWriteTokens: o.prompt_tokens_details?.cache_write_tokens ?? 0,
    reasoningTokens: o.completion_tokens_details?.reasoning_tokens ?? 0,
    estimated: false,
  };
}
