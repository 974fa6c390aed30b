// A vendor's usage report in our terms (Usage) and back out in OpenAI's shape, so a
// client sees the same usage object whichever vendor served it.
import { usageFromOpenAI, type Usage } from '../../wire/usage.ts';
import type { UsageStyle } from './profile.ts';

/** The value at a dotted path ("x_groq.usage"), or undefined. */
export function at(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const key of path.split('.')) {
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

function firstNumber(obj: unknown, paths: readonly string[]): number {
  for (const p of paths) {
    const v = at(obj, p);
    if (typeof v === 'number') return v;
  }
  return 0;
}

/** Reads one usage object as the vendor reports it. */
export function readUsage(raw: unknown, style: UsageStyle): Usage | null {
  const base = usageFromOpenAI(raw);
  if (!base) return null;
  return {
    ...base,
    cachedTokens: firstNumber(raw, style.cachedAt),
    completionTokens: style.reasoningOutsideCompletion ? base.completionTokens + base.reasoningTokens : base.completionTokens,
  };
}

/** The usage a vendor put on a response or stream chunk, wherever its style says it goes. */
export function usageIn(obj: unknown, style: UsageStyle): Usage | null {
  for (const p of style.at) {
    const u = readUsage(at(obj, p), style);
    if (u) return u;
  }
  return null;
}

/** Our Usage in OpenAI's usage shape. */
export function openAIUsage(u: Usage) {
  return {
    prompt_tokens: u.promptTokens,
    completion_tokens: u.completionTokens,
    total_tokens: u.promptTokens + u.completionTokens,
    prompt_tokens_details: { cached_tokens: u.cachedTokens },
    completion_tokens_details: { reasoning_tokens: u.reasoningTokens },
  };
}
