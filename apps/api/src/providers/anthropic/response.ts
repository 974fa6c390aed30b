// Anthropic Message → OpenAI chat.completion, as a pure function. Text blocks are the
// content; tool_use blocks are tool_calls (input re-serialised as the arguments JSON);
// the json_output tool's input is the content of a JSON-mode answer (see tools.ts);
// thinking and redacted_thinking blocks are the model's reasoning, not its answer, and
// are not passed on.
import type { Usage } from '../../wire/usage.ts';
import { tryJson } from '../vendor-error.ts';
import type { ParsedCompletion } from '../types.ts';
import { JSON_TOOL } from './tools.ts';
import { VendorShapeError } from '../vendor-shape.ts';
import type { AnthropicResponse, AnthropicUsage } from './wire.ts';

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

/** Anthropic's stop_reason → OpenAI's finish_reason. */
export const FINISH_REASONS: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
  pause_turn: 'stop',
};

/** tool_use means tool_calls only when a client tool was called; a JSON-mode answer alone is a normal stop. */
export function finishReason(stopReason: string | null | undefined, calledClientTool: boolean): FinishReason {
  const mapped = FINISH_REASONS[stopReason ?? 'end_turn'] ?? 'stop';
  return mapped === 'tool_calls' && !calledClientTool ? 'stop' : mapped;
}

const n = (v: number | null | undefined): number => (typeof v === 'number' ? v : 0);

/**
 * Anthropic counts uncached input, cache reads and cache writes apart; our promptTokens
 * is their sum. Writes kept an hour (cache_creation.ephemeral_1h_input_tokens) cost more
 * than five-minute ones and are kept apart. Thinking is billed inside output_tokens; newer models report its share
 * as output_tokens_details.thinking_tokens, older ones not at all (then 0).
 */
export function usageFromAnthropic(u: AnthropicUsage | null | undefined): Usage | null {
  if (!u || (typeof u.input_tokens !== 'number' && typeof u.output_tokens !== 'number')) return null;
  const cachedTokens = n(u.cache_read_input_tokens);
  const cacheWriteTokens = n(u.cache_creation_input_tokens);
  const cacheWriteLongTokens = n(u.cache_creation?.ephemeral_1h_input_tokens);
  return {
    promptTokens: n(u.input_tokens) + cachedTokens + cacheWriteTokens,
    completionTokens: n(u.output_tokens),
    cachedTokens,
    cacheWriteTokens,
    ...(cacheWriteLongTokens > 0 ? { cacheWriteLongTokens } : {}),
    reasoningTokens: n(u.output_tokens_details?.thinking_tokens),
    estimated: false,
  };
}

/** Our Usage in OpenAI's usage shape (cache writes ride in prompt_tokens_details, as usageFromOpenAI reads them). */
export function openAIUsage(u: Usage): Record<string, unknown> {
  return {
    prompt_tokens: u.promptTokens,
    completion_tokens: u.completionTokens,
    total_tokens: u.promptTokens + u.completionTokens,
    prompt_tokens_details: { cached_tokens: u.cachedTokens, cache_write_tokens: u.cacheWriteTokens },
    completion_tokens_details: { reasoning_tokens: u.reasoningTokens },
  };
}

export function toOpenAICompletion(res: AnthropicResponse, now: number = Date.now()): { completion: Record<string, unknown>; usage: Usage | null } {
  let content = '';
  const toolCalls: Record<string, unknown>[] = [];
  for (const block of res.content ?? []) {
    if (block.type === 'text') content += block.text ?? '';
    else if (block.type === 'tool_use' && block.name === JSON_TOOL) content += JSON.stringify(block.input ?? {});
    else if (block.type === 'tool_use') toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
  }
  const message: Record<string, unknown> = { role: 'assistant', content: content === '' && toolCalls.length > 0 ? null : content, refusal: null };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const usage = usageFromAnthropic(res.usage);
  return {
    completion: {
      id: res.id,
      object: 'chat.completion',
      created: Math.floor(now / 1000),
      model: res.model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(res.stop_reason, toolCalls.length > 0) }],
      ...(usage ? { usage: openAIUsage(usage) } : {}),
    },
    usage,
  };
}

export function parseAnthropicResponse(text: string, now?: number): ParsedCompletion {
  const parsed = tryJson(text) as AnthropicResponse | null;
  if (!parsed || typeof parsed !== 'object' || !Array.isArray(parsed.content)) throw new VendorShapeError('not an Anthropic message (no content list)', text);
  if (parsed.content.some((b) => !b || typeof b !== 'object' || typeof b.type !== 'string')) throw new VendorShapeError('a content block without a type', text);
  const { completion, usage } = toOpenAICompletion(parsed, now);
  return { text: JSON.stringify(completion), usage };
}
