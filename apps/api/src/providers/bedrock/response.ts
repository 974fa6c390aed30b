// Converse response → an OpenAI chat.completion, pure but for the id and timestamp
// it mints (Converse returns neither). Text blocks join into content, toolUse blocks
// become tool_calls, reasoning blocks are not part of the answer, and the forced
// JSON_TOOL's input becomes the content of a response_format request.
import { randomUUID } from 'node:crypto';
import type { CallTarget, ParsedCompletion } from '../types.ts';
import { openAIUsage, usageFromConverse } from './usage.ts';
import { JSON_TOOL, type ConverseResponse } from './wire.ts';
import { VendorShapeError } from '../vendor-shape.ts';

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

const FINISH: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  content_filtered: 'content_filter',
  guardrail_intervened: 'content_filter',
};

/** OpenAI's finish_reason; a tool_use stop that only answered through JSON_TOOL is a plain stop. */
export function finishReason(stopReason: string | undefined, onlyJsonTool: boolean): FinishReason {
  const mapped = FINISH[stopReason ?? ''] ?? 'stop';
  return mapped === 'tool_calls' && onlyJsonTool ? 'stop' : mapped;
}

export function completionId(): string {
  return `chatcmpl-${randomUUID().replace(/-/g, '')}`;
}

export function parseConverseResponse(text: string, target: CallTarget): ParsedCompletion {
  const j = JSON.parse(text) as ConverseResponse;
  if (!j || typeof j !== 'object' || typeof j.output?.message !== 'object' || j.output.message === null) throw new VendorShapeError('not a Converse response (no output message)', text);
  const blocks: unknown = j.output.message.content;
  if (blocks !== undefined && (!Array.isArray(blocks) || blocks.some((b) => !b || typeof b !== 'object'))) throw new VendorShapeError('message content that is not a list of blocks', text);
  let content = '';
  let sawText = false;
  const toolCalls: { id: string; type: 'function'; function: { name: string; arguments: string } }[] = [];
  let jsonAnswer = false;
  for (const block of j.output.message.content ?? []) {
    if (typeof block.text === 'string') {
      content += block.text;
      sawText = true;
    } else if (block.toolUse && block.toolUse.name === JSON_TOOL) {
      content += JSON.stringify(block.toolUse.input ?? {});
      jsonAnswer = true;
    } else if (block.toolUse) {
      toolCalls.push({ id: String(block.toolUse.toolUseId), type: 'function', function: { name: String(block.toolUse.name), arguments: JSON.stringify(block.toolUse.input ?? {}) } });
    }
  }
  const usage = usageFromConverse(j.usage);
  const message = {
    role: 'assistant' as const,
    content: sawText || jsonAnswer || toolCalls.length === 0 ? content : null,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    refusal: null,
  };
  const completion = {
    id: completionId(),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: target.model,
    choices: [{ index: 0, message, finish_reason: finishReason(j.stopReason, toolCalls.length === 0), logprobs: null }],
    ...(usage ? { usage: openAIUsage(usage) } : {}),
  };
  return { text: JSON.stringify(completion), usage };
}
