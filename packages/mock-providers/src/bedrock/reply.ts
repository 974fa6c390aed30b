// What the Bedrock mock answers, as Converse content blocks: the scripted reply
// (ScriptedReply is in OpenAI's terms and is translated here), or a deterministic one.
//
// - Default: with tools, the forced tool (toolChoice.tool), else the first tool
//   (toolChoice any, or auto before any toolResult); otherwise the text
//   `mock answer to: <last user text>`, cut at maxTokens (stopReason max_tokens) or at
//   a stop sequence (stopReason stop_sequence).
// - A model forced to call a tool always calls it: scripted content that is a JSON
//   object becomes the forced tool's input (how JSON output through a forced tool
//   looks on the real service).
// - Usage: scripted prompt_tokens include cached_tokens and cache_write_tokens, which
//   Bedrock reports apart (cacheReadInputTokens, cacheWriteInputTokens)
//   as cacheReadInputTokens; when the request enables thinking, a reasoning block
//   comes first and its tokens are inside outputTokens.
import { isRecord } from '../guards.ts';
import { sampleFromSchema } from '../openai/schema-sample.ts';
import { estimateTokens } from '../openai/text.ts';
import type { FinishReason, ScriptedReply } from '../types.ts';
import type { ConverseRequest } from './validate.ts';

export type ReplyBlock =
  | { text: string }
  | { toolUse: { toolUseId: string; name: string; input: Record<string, unknown> } }
  | { reasoningContent: { reasoningText: { text: string; signature: string } } };

export interface ConverseUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cacheReadInputTokens: number;
  cacheWriteInputTokens: number;
}

export interface ConverseReply {
  blocks: ReplyBlock[];
  stopReason: string;
  usage: ConverseUsage;
}

const STOP_REASON: Record<FinishReason, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'content_filtered',
};

const REASONING = 'Thinking it through step by step before answering.';

/** All text the model reads: system, text blocks, tool inputs and results. */
export function requestText(req: ConverseRequest): string {
  const parts: string[] = (req.system ?? []).map((b) => (typeof b.text === 'string' ? b.text : ''));
  for (const m of req.messages) {
    for (const b of m.content) {
      if (typeof b.text === 'string') parts.push(b.text);
      if (isRecord(b.toolUse)) parts.push(String(b.toolUse.name), JSON.stringify(b.toolUse.input));
      if (isRecord(b.toolResult)) parts.push(...(b.toolResult.content as Record<string, unknown>[]).map((c) => (typeof c.text === 'string' ? c.text : JSON.stringify(c.json ?? ''))));
    }
  }
  return parts.join('');
}

function lastUserText(req: ConverseRequest): string {
  const last = req.messages.findLast((m) => m.role === 'user' && m.content.some((b) => typeof b.text === 'string'));
  const text = (last?.content ?? []).filter((b) => typeof b.text === 'string').map((b) => b.text as string).join(' ');
  return text.replace(/\s+/g, ' ').trim().slice(0, 60);
}

function toolSchema(req: ConverseRequest, name: string): unknown {
  const tool = req.toolConfig?.tools.find((t) => t.toolSpec?.name === name);
  return tool?.toolSpec?.inputSchema?.json ?? {};
}

/** The tool the model calls unprompted, if any. */
function chosenTool(req: ConverseRequest): string | undefined {
  const tools = (req.toolConfig?.tools ?? []).filter((t) => isRecord(t.toolSpec)).map((t) => String(t.toolSpec.name));
  if (tools.length === 0) return undefined;
  const choice = req.toolConfig?.toolChoice;
  if (isRecord(choice?.tool)) return String(choice.tool.name);
  if (isRecord(choice?.any)) return tools[0];
  const afterToolResult = req.messages.at(-1)?.content.some((b) => isRecord(b.toolResult)) ?? false;
  return afterToolResult ? undefined : tools[0];
}

function parseObject(text: string | null | undefined): Record<string, unknown> | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    return isRecord(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

function defaultAnswer(req: ConverseRequest, newId: () => string): { blocks: ReplyBlock[]; stopReason: string } {
  const tool = chosenTool(req);
  if (tool) return { blocks: [{ toolUse: { toolUseId: newId(), name: tool, input: sampleFromSchema(toolSchema(req, tool)) as Record<string, unknown> } }], stopReason: 'tool_use' };
  let text = `mock answer to: ${lastUserText(req)}`;
  let stopReason = 'end_turn';
  for (const stop of req.inferenceConfig?.stopSequences ?? []) {
    const at = text.indexOf(stop);
    if (at >= 0) {
      text = text.slice(0, at);
      stopReason = 'stop_sequence';
    }
  }
  const max = req.inferenceConfig?.maxTokens;
  if (max !== undefined && estimateTokens(text) > max) {
    text = text.slice(0, max * 4);
    stopReason = 'max_tokens';
  }
  return { blocks: text === '' ? [] : [{ text }], stopReason };
}

function scriptedAnswer(req: ConverseRequest, s: Partial<ScriptedReply>, newId: () => string): { blocks: ReplyBlock[]; stopReason: string } | null {
  if (s.content === undefined && s.tool_calls === undefined && s.finish_reason === undefined) return null;
  const forced = req.toolConfig?.toolChoice?.tool?.name as string | undefined;
  const forcedInput = forced && !s.tool_calls ? parseObject(s.content) : undefined;
  if (forced && forcedInput) return { blocks: [{ toolUse: { toolUseId: newId(), name: forced, input: forcedInput } }], stopReason: 'tool_use' };
  const fallback = defaultAnswer(req, newId);
  const fallbackText = fallback.blocks.filter((b) => 'text' in b);
  const fallbackTools = fallback.blocks.filter((b) => 'toolUse' in b);
  const text: ReplyBlock[] = s.content !== undefined ? (s.content ? [{ text: s.content }] : []) : s.tool_calls ? [] : fallbackText;
  const tools: ReplyBlock[] = s.tool_calls
    ? s.tool_calls.map((call) => ({ toolUse: { toolUseId: call.id ?? newId(), name: call.name, input: parseObject(call.arguments) ?? {} } }))
    : s.content !== undefined
      ? []
      : fallbackTools;
  const blocks = [...text, ...tools];
  const stopReason = s.finish_reason ? STOP_REASON[s.finish_reason] : tools.length > 0 ? 'tool_use' : s.content === undefined ? fallback.stopReason : 'end_turn';
  return { blocks, stopReason };
}

export function buildReply(req: ConverseRequest, script: Partial<ScriptedReply> | undefined, newId: () => string): ConverseReply {
  const answer = scriptedAnswer(req, script ?? {}, newId) ?? defaultAnswer(req, newId);
  const thinking = isRecord(req.additionalModelRequestFields?.thinking) && req.additionalModelRequestFields.thinking.type === 'enabled';
  const blocks: ReplyBlock[] = thinking ? [{ reasoningContent: { reasoningText: { text: REASONING, signature: 'bW9jay1zaWduYXR1cmU=' } } }, ...answer.blocks] : answer.blocks;
  const answerText = answer.blocks.map((b) => ('text' in b ? b.text : 'toolUse' in b ? b.toolUse.name + JSON.stringify(b.toolUse.input) : '')).join('');
  const u = script?.usage;
  const reasoning = thinking ? (u?.reasoning_tokens ?? estimateTokens(REASONING)) : 0;
  const prompt = u?.prompt_tokens ?? estimateTokens(requestText(req));
  const cached = Math.min(u?.cached_tokens ?? 0, prompt);
  const written = Math.min(u?.cache_write_tokens ?? 0, prompt - cached);
  const output = u ? u.completion_tokens : estimateTokens(answerText) + reasoning;
  const usage = { inputTokens: prompt - cached - written, outputTokens: output, totalTokens: prompt + output, cacheReadInputTokens: cached, cacheWriteInputTokens: written };
  return { blocks, stopReason: answer.stopReason, usage };
}
