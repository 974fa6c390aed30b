// Decides what the mock answers, in Anthropic's terms: the scripted reply (given in the
// shared OpenAI-flavoured ScriptedReply shape), or a deterministic one derived from the
// request. Like the real model, the mock honours a forced tool (tool_choice "tool"):
// scripted JSON-object content becomes that tool's input. With thinking enabled (or
// scripted reasoning tokens) the answer starts with a thinking block, and usage reports
// its share as output_tokens_details.thinking_tokens.
import { isRecord, type JsonObject } from '../guards.ts';
import { sampleFromSchema } from '../openai/schema-sample.ts';
import { estimateTokens } from '../openai/text.ts';
import type { FinishReason, ScriptedReply } from '../types.ts';
import type { MessagesRequest } from './validate.ts';

export type ReplyBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown };

export interface ReplyUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  /** The writes by lifetime, as the Messages API reports them beside the total. */
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  cache_read_input_tokens: number;
  output_tokens: number;
  output_tokens_details?: { thinking_tokens: number };
}

export interface Reply {
  content: ReplyBlock[];
  stopReason: 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal';
  stopSequence: string | null;
  usage: ReplyUsage;
}

const STOP_REASONS: Record<FinishReason, Reply['stopReason']> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
};

/** Text a block carries, for the chars/4 token estimate. */
function blockText(block: unknown): string {
  if (!isRecord(block)) return '';
  if (typeof block.text === 'string') return block.text;
  if (block.type === 'tool_use') return String(block.name) + JSON.stringify(block.input ?? {});
  if (block.type === 'tool_result') return typeof block.content === 'string' ? block.content : Array.isArray(block.content) ? block.content.map(blockText).join('') : '';
  return '';
}

function contentText(content: unknown): string {
  return typeof content === 'string' ? content : Array.isArray(content) ? content.map(blockText).join('') : '';
}

export function promptText(request: MessagesRequest): string {
  return contentText(request.system) + request.messages.map((m) => contentText(m.content)).join('');
}

function lastUserText(request: MessagesRequest): string {
  const last = request.messages.findLast((m) => m.role === 'user');
  const content = last?.content;
  const text = typeof content === 'string' ? content : Array.isArray(content) ? (content as JsonObject[]).filter((b) => b.type === 'text').map((b) => b.text).join(' ') : '';
  return text.replace(/\s+/g, ' ').trim().slice(0, 60);
}

function parseObject(text: string | null | undefined): JsonObject | null {
  try {
    const v: unknown = JSON.parse(text ?? '');
    return isRecord(v) ? v : null;
  } catch {
    return null;
  }
}

/** The tool the default answer calls: the forced one, else the first unless the last turn carries tool results. */
function chooseTool(request: MessagesRequest): JsonObject | undefined {
  const tools = request.tools ?? [];
  const choice = request.tool_choice;
  if (tools.length === 0 || choice?.type === 'none') return undefined;
  if (choice?.type === 'tool') return tools.find((t) => t.name === choice.name);
  const last = request.messages.at(-1);
  const afterResults = Array.isArray(last?.content) && (last.content as JsonObject[]).some((b) => b.type === 'tool_result');
  return choice?.type === 'any' || !afterResults ? tools[0] : undefined;
}

/** Cuts a default text answer at the first stop sequence or at max_tokens, as the model would stop. */
function stopText(text: string, request: MessagesRequest): { text: string; stopReason: Reply['stopReason']; stopSequence: string | null } {
  for (const seq of request.stop_sequences ?? []) {
    const at = text.indexOf(seq);
    if (at !== -1) return { text: text.slice(0, at), stopReason: 'stop_sequence', stopSequence: seq };
  }
  if (estimateTokens(text) > request.max_tokens) return { text: text.slice(0, request.max_tokens * 4), stopReason: 'max_tokens', stopSequence: null };
  return { text, stopReason: 'end_turn', stopSequence: null };
}

function answer(request: MessagesRequest, script: Partial<ScriptedReply> | undefined, newToolId: () => string): Omit<Reply, 'usage'> {
  const s = script ?? {};
  const forced = request.tool_choice?.type === 'tool' ? request.tool_choice.name : undefined;
  const scriptedJson = forced && !s.tool_calls && s.content !== undefined ? parseObject(s.content) : null;
  if (scriptedJson) return { content: [{ type: 'tool_use', id: newToolId(), name: forced!, input: scriptedJson }], stopReason: 'tool_use', stopSequence: null };
  if (s.tool_calls || s.content !== undefined) {
    const content: ReplyBlock[] = s.content ? [{ type: 'text', text: s.content }] : [];
    for (const c of s.tool_calls ?? []) content.push({ type: 'tool_use', id: c.id ?? newToolId(), name: c.name, input: parseObject(c.arguments) ?? {} });
    const stopReason = s.finish_reason ? STOP_REASONS[s.finish_reason] : s.tool_calls?.length ? 'tool_use' : 'end_turn';
    return { content, stopReason, stopSequence: null };
  }
  const tool = chooseTool(request);
  if (tool) {
    const input = sampleFromSchema(tool.input_schema);
    return { content: [{ type: 'tool_use', id: newToolId(), name: String(tool.name), input }], stopReason: 'tool_use', stopSequence: null };
  }
  const cut = stopText(`mock answer to: ${lastUserText(request)}`, request);
  return { content: cut.text ? [{ type: 'text', text: cut.text }] : [], stopReason: s.finish_reason ? STOP_REASONS[s.finish_reason] : cut.stopReason, stopSequence: cut.stopSequence };
}

export function buildReply(request: MessagesRequest, script: Partial<ScriptedReply> | undefined, newToolId: () => string): Reply {
  const { content, stopReason, stopSequence } = answer(request, script, newToolId);
  const scripted = script?.usage;
  const thinks = request.thinking?.type === 'enabled' || (scripted?.reasoning_tokens ?? 0) > 0;
  const thinking = `mock reasoning about: ${lastUserText(request)}`;
  const blocks: ReplyBlock[] = thinks ? [{ type: 'thinking', thinking, signature: 'mock-signature-0001' }, ...content] : content;
  const thinkingTokens = thinks ? (scripted?.reasoning_tokens ?? estimateTokens(thinking)) : 0;
  const cached = scripted?.cached_tokens ?? 0;
  const written = scripted?.cache_write_tokens ?? 0;
  const writtenLong = Math.min(written, scripted?.cache_write_long_tokens ?? 0);
  const usage: ReplyUsage = {
    input_tokens: scripted ? scripted.prompt_tokens - cached - written : estimateTokens(promptText(request)),
    cache_creation_input_tokens: written,
    cache_creation: { ephemeral_5m_input_tokens: written - writtenLong, ephemeral_1h_input_tokens: writtenLong },
    cache_read_input_tokens: cached,
    output_tokens: scripted ? scripted.completion_tokens : estimateTokens(content.map(blockText).join('')) + thinkingTokens,
    ...(thinks ? { output_tokens_details: { thinking_tokens: thinkingTokens } } : {}),
  };
  return { content: blocks, stopReason, stopSequence, usage };
}
