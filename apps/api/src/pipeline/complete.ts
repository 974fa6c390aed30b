// One whole (non-stream) completion on one model, read and parsed: used by policies
// that look at answers before serving one (gates, the quality gate) and by
// exploration (probes, the judge).
import type { ChatBody } from '../providers/types.ts';
import type { Attempt, CallContext, Candidate } from './context.ts';
import { dispatchOnce, type DispatchDeps } from './dispatch.ts';
import { estimateUsage, readAnswer } from './read-answer.ts';

export interface Completed {
  /** The OpenAI chat.completion JSON text, as the adapter produced it. */
  text: string;
  /** The answer's content (or its tool calls as JSON) for comparison and grading. */
  answer: string;
  finishReason: string | null;
  attempt: Attempt;
  status: number;
}

export function answerOf(json: string): { answer: string; finishReason: string | null } {
  try {
    const j = JSON.parse(json) as { choices?: { message?: { content?: string | null; tool_calls?: unknown[] }; finish_reason?: string | null }[] };
    const c = j.choices?.[0];
    const content = c?.message?.content ?? '';
    const tools = c?.message?.tool_calls?.length ? JSON.stringify(c.message.tool_calls) : '';
    return { answer: content || tools, finishReason: c?.finish_reason ?? null };
  } catch {
    return { answer: '', finishReason: null };
  }
}

export async function completeOn(ctx: CallContext, deps: DispatchDeps, signal: AbortSignal, candidate: Candidate, role: Attempt['role'], body?: ChatBody): Promise<Completed> {
  const source = (body ?? ctx.body) as Record<string, unknown>;
  const { stream: _stream, stream_options: _options, ...whole } = source;
  const d = await dispatchOnce(ctx, deps, signal, candidate, role, whole as unknown as ChatBody);
  const { parsed, upstreamMs } = await readAnswer(d); // a transfer that failed, or a 502 upstream_invalid
  d.attempt.latencyMs = upstreamMs;
  const { answer, finishReason } = answerOf(parsed.text);
  d.attempt.usage = parsed.usage ?? estimateUsage(ctx, answer);
  return { text: parsed.text, answer, finishReason, attempt: d.attempt, status: d.response.statusCode };
}
