// A streamed answer, put back together as the chat.completion it streamed: content
// and tool-call deltas joined in order, the finish reason of its last chunk. The
// caches store answers in that shape, whichever way they were delivered.

interface ToolDelta {
  index?: number;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}

interface ChunkChoice {
  index?: number;
  delta?: { role?: string; content?: string | null; tool_calls?: ToolDelta[]; refusal?: string | null };
  finish_reason?: string | null;
}

interface Chunk {
  id?: string;
  created?: number;
  model?: string;
  system_fingerprint?: string | null;
  choices?: ChunkChoice[];
}

/**
 * The chat.completion JSON a stream's chunks (each chunk's `data`) add up to, or null when
 * they do not make one whole single-choice answer (several choices, or chunks that do not parse).
 */
export function completionFromChunks(chunks: readonly string[], usage?: { prompt_tokens: number; completion_tokens: number }): string | null {
  let meta: Chunk | null = null;
  let content = '';
  let sawContent = false;
  let finish: string | null = null;
  const tools: { id: string; type: string; name: string; arguments: string }[] = [];
  for (const data of chunks) {
    let c: Chunk;
    try {
      c = JSON.parse(data) as Chunk;
    } catch {
      return null;
    }
    meta ??= c;
    for (const ch of c.choices ?? []) {
      if ((ch.index ?? 0) !== 0) return null;
      if (typeof ch.delta?.content === 'string') {
        content += ch.delta.content;
        sawContent = true;
      }
      for (const t of ch.delta?.tool_calls ?? []) {
        const i = t.index ?? tools.length;
        const slot = (tools[i] ??= { id: '', type: 'function', name: '', arguments: '' });
        if (t.id) slot.id = t.id;
        if (t.type) slot.type = t.type;
        if (t.function?.name) slot.name += t.function.name;
        if (t.function?.arguments) slot.arguments += t.function.arguments;
      }
      if (ch.finish_reason) finish = ch.finish_reason;
    }
  }
  if (!meta) return null;
  const message: Record<string, unknown> = { role: 'assistant', content: sawContent ? content : null };
  const calls = tools.filter(Boolean);
  if (calls.length) message.tool_calls = calls.map((t) => ({ id: t.id, type: t.type, function: { name: t.name, arguments: t.arguments } }));
  return JSON.stringify({
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    system_fingerprint: meta.system_fingerprint ?? null,
    choices: [{ index: 0, message, finish_reason: finish }],
    ...(usage ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } : {}),
  });
}
