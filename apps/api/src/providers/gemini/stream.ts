// Gemini's SSE stream (`data: {GenerateContentResponse}` per event, no terminator) →
// OpenAI chunks. Pure and incremental: bytes may split anywhere. Text parts become
// content deltas; a functionCall arrives whole, so it becomes one tool_call delta with
// id, name and the full arguments; finishReason ends a choice; the last usageMetadata
// (Gemini's running totals) is the call's usage, reported once the body ends.
import { randomUUID } from 'node:crypto';
import { SseSplitter, eventData } from '../../wire/sse.ts';
import type { Usage } from '../../wire/usage.ts';
import type { CallTarget, StreamDecoder, StreamEvent } from '../types.ts';
import { tryJson } from '../vendor-error.ts';
import { streamErrorData } from './errors.ts';
import { isRecord } from './guards.ts';
import { VendorShapeError } from '../vendor-shape.ts';
import { assertGeminiShape } from './response.ts';
import { callIds, finishReason, openAIUsage, readParts, usageFromGemini, type GeminiResponse } from './wire.ts';

interface Meta {
  id: string;
  created: number;
  model: string;
}

interface ChoiceState {
  toolCalls: number;
}

export function geminiStreamDecoder(target: CallTarget, now: () => number = Date.now): StreamDecoder {
  const splitter = new SseSplitter();
  const created = Math.floor(now() / 1000);
  const choices = new Map<number, ChoiceState>();
  let meta: Meta | null = null;
  let newCallId: (() => string) | null = null;
  let usage: Usage | null = null;
  let finished = false;
  let failed = false;

  const chunk = (m: Meta, index: number, delta: Record<string, unknown>, finish: string | null = null): StreamEvent => ({
    kind: 'chunk',
    data: JSON.stringify({ id: m.id, object: 'chat.completion.chunk', created: m.created, model: m.model, choices: [{ index, delta, logprobs: null, finish_reason: finish }] }),
  });

  const decodeEvent = (r: GeminiResponse): StreamEvent[] => {
    const out: StreamEvent[] = [];
    meta ??= { id: r.responseId ?? randomUUID().replace(/-/g, ''), created, model: r.modelVersion ?? target.model };
    newCallId ??= callIds(meta.id);
    const candidates = r.candidates ?? [];
    // A blocked prompt: no candidates, only promptFeedback.blockReason.
    if (candidates.length === 0 && r.promptFeedback?.blockReason !== undefined) candidates.push({ index: 0, finishReason: 'SAFETY' });
    for (const [i, c] of candidates.entries()) {
      const index = c.index ?? i;
      const seen = choices.get(index);
      const state: ChoiceState = seen ?? { toolCalls: 0 };
      if (!seen) {
        choices.set(index, state);
        out.push(chunk(meta, index, { role: 'assistant', content: '' }));
      }
      const { text, calls } = readParts(c.content?.parts, newCallId);
      if (text.length > 0) out.push(chunk(meta, index, { content: text.join('') }));
      if (calls.length > 0) {
        const deltas = calls.map((call) => ({ index: state.toolCalls++, ...call }));
        out.push(chunk(meta, index, { tool_calls: deltas }));
      }
      if (c.finishReason) {
        out.push(chunk(meta, index, {}, finishReason(c.finishReason, state.toolCalls > 0)));
        finished = true;
      }
    }
    usage = usageFromGemini(r.usageMetadata) ?? usage;
    return out;
  };

  const decode = (events: string[]): StreamEvent[] => {
    const out: StreamEvent[] = [];
    for (const ev of events) {
      if (failed) break;
      const data = eventData(ev);
      if (data === null || data.trim() === '') continue;
      const r: unknown = tryJson(data);
      if (!isRecord(r)) throw new VendorShapeError('a stream event that is not a JSON object', data);
      if (r.error !== undefined) {
        failed = true;
        out.push({ kind: 'error', data: streamErrorData(r.error) });
        continue;
      }
      assertGeminiShape(r, data, true);
      out.push(...decodeEvent(r as GeminiResponse));
    }
    return out;
  };

  return {
    push: (bytes) => decode(splitter.push(bytes)),
    end: () => {
      const rest = splitter.rest();
      const out = decode(rest.trim() ? [rest] : []);
      if (failed || !finished) return out;
      if (usage && meta) {
        const m: Meta = meta;
        const data = JSON.stringify({ id: m.id, object: 'chat.completion.chunk', created: m.created, model: m.model, choices: [], usage: openAIUsage(usage) });
        out.push({ kind: 'usage', usage, data });
      }
      out.push({ kind: 'done' });
      return out;
    },
  };
}
