// Response bodies in Anthropic's wire shapes: the Message object and the model list.
import type { Reply } from './reply.ts';

export interface ReplyMeta {
  id: string;
  model: string;
}

export function messageBody(reply: Reply, meta: ReplyMeta): Record<string, unknown> {
  return {
    id: meta.id,
    type: 'message',
    role: 'assistant',
    model: meta.model,
    content: reply.content,
    stop_reason: reply.stopReason,
    stop_sequence: reply.stopSequence,
    usage: { ...reply.usage, service_tier: 'standard' },
  };
}

export function modelList(ids: readonly string[]): Record<string, unknown> {
  const data = ids.map((id) => ({ type: 'model', id, display_name: id, created_at: '2025-01-01T00:00:00Z' }));
  return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}
