// The quality gate (design §6): cheap checks on a downshifted answer before it is
// served — non-empty, not cut off, not refused, JSON where JSON was asked for, and
// tool-call arguments that parse and carry the tool's required fields.
import type { Completed } from './complete.ts';

/** What is wrong with the answer, or null when it passes. */
export function validateAnswer(body: Record<string, unknown>, c: Completed): string | null {
  let msg: { content?: string | null; tool_calls?: { function?: { name?: string; arguments?: string } }[]; refusal?: string | null } | undefined;
  try {
    msg = (JSON.parse(c.text) as { choices?: { message?: typeof msg }[] }).choices?.[0]?.message;
  } catch {
    return 'is not a readable completion';
  }
  if (!msg) return 'is empty';
  if (msg.refusal) return 'is a refusal';
  if (c.finishReason === 'content_filter') return 'was filtered';
  const asked = body.max_tokens !== undefined || body.max_completion_tokens !== undefined;
  if (c.finishReason === 'length' && !asked) return 'was cut off';
  const tools = new Map(((body.tools as { function?: { name?: string; parameters?: { required?: string[] } } }[] | undefined) ?? []).map((t) => [t.function?.name, t.function?.parameters]));
  if (msg.tool_calls?.length) {
    for (const t of msg.tool_calls) {
      let args: Record<string, unknown>;
      try {
        args = JSON.parse(t.function?.arguments ?? '') as Record<string, unknown>;
      } catch {
        return `calls ${t.function?.name} with arguments that are not JSON`;
      }
      if (!tools.has(t.function?.name)) return `calls an unknown tool ${t.function?.name}`;
      for (const r of tools.get(t.function?.name)?.required ?? []) if (!(r in args)) return `calls ${t.function?.name} without ${r}`;
    }
    return null;
  }
  const content = msg.content ?? '';
  if (!content.trim()) return 'is empty';
  const rf = (body.response_format as { type?: string } | undefined)?.type;
  if (rf === 'json_object' || rf === 'json_schema') {
    try {
      JSON.parse(content);
    } catch {
      return 'is not the JSON the request asked for';
    }
  }
  return null;
}
