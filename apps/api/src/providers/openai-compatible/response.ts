// A vendor's non-stream answer as OpenAI's chat.completion: finish reasons in OpenAI's
// words, text content as a string, tool calls with type and string arguments, and usage
// in OpenAI's shape from wherever the vendor put it. Pure.
import type { ParsedCompletion } from '../types.ts';
import { tryJson } from '../vendor-error.ts';
import { isErrorPayload } from './errors.ts';
import type { VendorProfile } from './profile.ts';
import { openAIUsage, usageIn } from './usage.ts';
import { assertCompletionShape } from '../openai/adapter.ts';

type Json = Record<string, unknown>;

/** Message content as OpenAI's string: text parts joined (thinking parts left out). */
export function textOf(content: unknown): string | null | undefined {
  if (!Array.isArray(content)) return content as string | null | undefined;
  return content.map((p: { type?: unknown; text?: unknown }) => (p?.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('');
}

export function finishReason(reason: unknown, profile: VendorProfile): unknown {
  return typeof reason === 'string' ? (profile.finishReasons?.[reason] ?? reason) : (reason ?? null);
}

/** Tool-call arguments as JSON text (some vendors send an object). */
export function argumentsText(args: unknown): string | undefined {
  if (args === undefined || typeof args === 'string') return args;
  return JSON.stringify(args ?? {});
}

function toolCall(c: Json, i: number): Json {
  const f = (c.function ?? {}) as Json;
  return { id: typeof c.id === 'string' && c.id ? c.id : `call_${i}`, type: 'function', function: { name: f.name, arguments: argumentsText(f.arguments) ?? '{}' } };
}

function message(m: Json | undefined): Json {
  const out: Json = { ...(m ?? {}), role: 'assistant', content: textOf(m?.content) ?? null };
  if (Array.isArray(out.tool_calls) && out.tool_calls.length > 0) out.tool_calls = (out.tool_calls as Json[]).map(toolCall);
  else delete out.tool_calls;
  return out;
}

export function parseCompletion(text: string, profile: VendorProfile): ParsedCompletion {
  const j = tryJson(text) as Json | null;
  if (!j || typeof j !== 'object' || Array.isArray(j)) throw new SyntaxError('not JSON');
  if (isErrorPayload(j) && !Array.isArray(j.choices)) throw new SyntaxError('an error body with status 200');
  assertCompletionShape(j, text);
  const usage = usageIn(j, profile.usage);
  const out: Json = {
    ...j,
    object: 'chat.completion',
    choices: (j.choices as Json[]).map((c, i) => ({
      ...c,
      index: c.index ?? i,
      message: message(c.message as Json | undefined),
      finish_reason: finishReason(c.finish_reason, profile),
      logprobs: c.logprobs ?? null,
    })),
  };
  delete out.x_groq; // Groq's request id and a second copy of usage
  if (usage) out.usage = openAIUsage(usage);
  return { text: JSON.stringify(out), usage };
}
