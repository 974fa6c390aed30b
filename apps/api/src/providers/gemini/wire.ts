// Gemini's response shapes, and what they mean in OpenAI's terms: finish reasons,
// usage, and the parts of a candidate (answer text and function calls).
import type { Usage } from '../../wire/usage.ts';
import { isRecord } from './guards.ts';

export interface GeminiUsage {
  promptTokenCount?: number;
  cachedContentTokenCount?: number;
  candidatesTokenCount?: number;
  toolUsePromptTokenCount?: number;
  thoughtsTokenCount?: number;
  totalTokenCount?: number;
}

export interface GeminiPart {
  text?: string;
  thought?: boolean;
  functionCall?: { id?: string; name?: string; args?: unknown };
  thoughtSignature?: string;
}

export interface GeminiCandidate {
  index?: number;
  content?: { role?: string; parts?: GeminiPart[] };
  finishReason?: string;
}

export interface GeminiResponse {
  candidates?: GeminiCandidate[];
  promptFeedback?: { blockReason?: string };
  usageMetadata?: GeminiUsage;
  modelVersion?: string;
  responseId?: string;
  error?: unknown;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

/** Gemini finishReason → OpenAI finish_reason; unlisted reasons (OTHER, MALFORMED_FUNCTION_CALL, ...) end as `stop`. */
export const FINISH_REASONS: Readonly<Record<string, FinishReason>> = {
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  IMAGE_SAFETY: 'content_filter',
  IMAGE_PROHIBITED_CONTENT: 'content_filter',
  IMAGE_RECITATION: 'content_filter',
};

export function finishReason(reason: string, calledFunctions: boolean): FinishReason {
  const mapped = FINISH_REASONS[reason] ?? 'stop';
  return mapped === 'stop' && calledFunctions ? 'tool_calls' : mapped;
}

/** Gemini's usage in our terms: prompt includes cached and tool-use prompt tokens, completion includes thinking. */
export function usageFromGemini(u: unknown): Usage | null {
  if (!isRecord(u)) return null;
  const g = u as GeminiUsage;
  if (typeof g.promptTokenCount !== 'number' && typeof g.candidatesTokenCount !== 'number') return null;
  const thoughts = g.thoughtsTokenCount ?? 0;
  return {
    promptTokens: (g.promptTokenCount ?? 0) + (g.toolUsePromptTokenCount ?? 0),
    completionTokens: (g.candidatesTokenCount ?? 0) + thoughts,
    cachedTokens: g.cachedContentTokenCount ?? 0,
    cacheWriteTokens: 0,
    reasoningTokens: thoughts,
    estimated: false,
  };
}

export function openAIUsage(u: Usage): Record<string, unknown> {
  return {
    prompt_tokens: u.promptTokens,
    completion_tokens: u.completionTokens,
    total_tokens: u.promptTokens + u.completionTokens,
    prompt_tokens_details: { cached_tokens: u.cachedTokens },
    completion_tokens_details: { reasoning_tokens: u.reasoningTokens },
  };
}

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** Answer text (thought summaries skipped) and function calls of one candidate's parts. */
export function readParts(parts: GeminiPart[] | undefined, newCallId: () => string): { text: string[]; calls: ToolCall[] } {
  const text: string[] = [];
  const calls: ToolCall[] = [];
  for (const p of parts ?? []) {
    if (p.thought === true) continue;
    if (typeof p.text === 'string' && p.text !== '') text.push(p.text);
    if (p.functionCall) {
      const id = typeof p.functionCall.id === 'string' && p.functionCall.id ? p.functionCall.id : newCallId();
      calls.push({ id, type: 'function', function: { name: String(p.functionCall.name ?? ''), arguments: JSON.stringify(p.functionCall.args ?? {}) } });
    }
  }
  return { text, calls };
}

/**
 * Tool-call ids for one response: `call_<responseId>_<n>`. Gemini 2.5 sends no call ids;
 * the response id keeps them unique across the turns of a conversation.
 */
export function callIds(responseId: string): () => string {
  let n = 0;
  const stem = responseId.replace(/[^A-Za-z0-9_-]/g, '');
  return () => `call_${stem}_${n++}`;
}
