// Gemini generateContent response → OpenAI `chat.completion`, as a pure function.
import { randomUUID } from 'node:crypto';
import type { CallTarget, ParsedCompletion } from '../types.ts';
import { tryJson } from '../vendor-error.ts';
import { isRecord } from './guards.ts';
import { VendorShapeError } from '../vendor-shape.ts';
import { callIds, finishReason, openAIUsage, readParts, usageFromGemini, type GeminiResponse } from './wire.ts';

/**
 * What the translator reads of a GenerateContentResponse: candidates (a list of objects whose
 * content, if any, is an object with a list of parts) or a prompt's block feedback; a stream
 * event may carry only the running usage.
 */
export function assertGeminiShape(r: unknown, raw: string, stream: boolean): void {
  if (!isRecord(r)) throw new VendorShapeError('not a JSON object', raw);
  const { candidates, promptFeedback, usageMetadata } = r as { candidates?: unknown; promptFeedback?: unknown; usageMetadata?: unknown };
  if (candidates !== undefined) {
    if (!Array.isArray(candidates)) throw new VendorShapeError('candidates that are not a list', raw);
    for (const c of candidates as unknown[]) {
      if (!isRecord(c)) throw new VendorShapeError('a candidate that is not an object', raw);
      const content = (c as { content?: unknown }).content;
      if (content !== undefined && !(isRecord(content) && ((content as { parts?: unknown }).parts === undefined || Array.isArray((content as { parts?: unknown }).parts)))) {
        throw new VendorShapeError('a candidate whose content has no list of parts', raw);
      }
    }
    return;
  }
  if (isRecord(promptFeedback)) return;
  if (stream && isRecord(usageMetadata)) return;
  throw new VendorShapeError('no candidates', raw);
}

export function parseGeminiResponse(text: string, target: CallTarget, now: () => number = Date.now): ParsedCompletion {
  const parsed: unknown = tryJson(text);
  if (!isRecord(parsed)) throw new SyntaxError('gemini answered with a body that is not a JSON object');
  assertGeminiShape(parsed, text, false);
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
