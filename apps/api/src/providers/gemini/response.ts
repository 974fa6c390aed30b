// Gemini generateContent response → OpenAI `chat.completion`, as a pure function.
import { randomUUID } from 'node:crypto';
import type { CallTarget, ParsedCompletion } from '../types.ts';
import { tryJson } from '../vendor-error.ts';
import { isRecord } from './guards.ts';
import { callIds, finishReason, openAIUsage, readParts, usageFromGemini, type GeminiResponse } from './wire.ts';

export function parseGeminiResponse(text: string, target: CallTarget, now: () => number = Date.now): ParsedCompletion {
  const parsed: unknown = tryJson(text);
  if (!isRecord(parsed)) throw new SyntaxError('gemini answered with a body that is not a JSON object');
  const r = parsed as GeminiResponse;
  const responseId = r.responseId ?? randomUUID().replace(/-/g, '');
  const newCallId = callIds(responseId);
  const choices = (r.candidates ?? []).map((c, i) => {
    const { text: parts, calls } = readParts(c.content?.parts, newCallId);
    const message: Record<string, unknown> = {
      role: 'assistant',
      content: parts.length > 0 ? parts.join('') : calls.length > 0 ? null : '',
      refusal: null,
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    };
    return { index: c.index ?? i, message, finish_reason: finishReason(c.finishReason ?? 'STOP', calls.length > 0), logprobs: null };
  });
  // A prompt Gemini blocks gets no candidates, only promptFeedback.blockReason.
  if (choices.length === 0) {
    const blocked = r.promptFeedback?.blockReason !== undefined;
    choices.push({ index: 0, message: { role: 'assistant', content: blocked ? null : '', refusal: null }, finish_reason: blocked ? 'content_filter' : 'stop', logprobs: null });
  }
  const usage = usageFromGemini(r.usageMetadata);
  const completion = {
    id: responseId,
    object: 'chat.completion',
    created: Math.floor(now() / 1000),
    model: r.modelVersion ?? target.model,
    choices,
    ...(usage ? { usage: openAIUsage(usage) } : {}),
  };
  return { text: JSON.stringify(completion), usage };
}
