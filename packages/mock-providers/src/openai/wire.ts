// Response bodies in OpenAI's wire shapes: chat.completion, chat.completion.chunk, model list.
import type { Reply } from './reply.ts';

export interface ReplyMeta {
  id: string;
  created: number;
  model: string;
}

const FINGERPRINT = 'fp_mock0001';

export function completionBody(reply: Reply, meta: ReplyMeta): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant', content: reply.content, refusal: null, annotations: [] };
  if (reply.toolCalls.length > 0) {
    message.tool_calls = reply.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
  }
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: reply.finishReason }],
    usage: reply.usage,
    service_tier: 'default',
    system_fingerprint: FINGERPRINT,
  };
}

/** One chunk; with include_usage every chunk carries `usage` (null until the last one). */
export function chunkBody(
  meta: ReplyMeta,
  choices: unknown[],
  includeUsage: boolean,
  usage: Reply['usage'] | null = null,
): Record<string, unknown> {
  const chunk: Record<string, unknown> = {
    id: meta.id,
    object: 'chat.completion.chunk',
    created: meta.created,
    model: meta.model,
    service_tier: 'default',
    system_fingerprint: FINGERPRINT,
    choices,
  };
  if (includeUsage) chunk.usage = usage;
  return chunk;
}

export function deltaChoice(delta: Record<string, unknown>, finishReason: string | null = null): Record<string, unknown> {
  return { index: 0, delta, logprobs: null, finish_reason: finishReason };
}

export const MODEL_IDS = ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'gpt-4.1-mini', 'gpt-4.1-nano', 'o4-mini', 'gpt-5', 'gpt-5-mini', 'gpt-5-nano'];

export function modelList(extra: readonly string[]): Record<string, unknown> {
  const data = [...MODEL_IDS, ...extra].map((id) => ({ id, object: 'model', created: 1700000000, owned_by: 'system' }));
  return { object: 'list', data };
}
