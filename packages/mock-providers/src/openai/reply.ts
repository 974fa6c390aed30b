// Decides what the mock answers: the scripted reply, or a deterministic one derived from the request.
import { isRecord } from '../guards.ts';
import type { FinishReason, ScriptedReply } from '../types.ts';
import { sampleFromSchema } from './schema-sample.ts';
import { allMessageText, estimateTokens, lastUserText } from './text.ts';
import type { ChatRequest } from './validate.ts';

export interface ReplyToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; audio_tokens: number };
  completion_tokens_details: {
    reasoning_tokens: number;
    audio_tokens: number;
    accepted_prediction_tokens: number;
    rejected_prediction_tokens: number;
  };
}

export interface Reply {
  content: string | null;
  toolCalls: ReplyToolCall[];
  finishReason: FinishReason;
  usage: Usage;
}

export function buildReply(request: ChatRequest, script: Partial<ScriptedReply> | undefined, newCallId: () => string): Reply {
  const fallback = defaultAnswer(request, newCallId);
  const s = script ?? {};
  const scriptedCalls = s.tool_calls?.map((c) => ({ id: c.id ?? newCallId(), name: c.name, arguments: c.arguments }));
  const content = s.content !== undefined ? s.content : scriptedCalls ? null : fallback.content;
  const toolCalls = scriptedCalls ?? (s.content !== undefined ? [] : fallback.toolCalls);
  const finishReason = s.finish_reason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop');
  const answerText = (content ?? '') + toolCalls.map((c) => c.name + c.arguments).join('');
  const usage = makeUsage(
    s.usage ?? { prompt_tokens: estimateTokens(allMessageText(request.messages)), completion_tokens: estimateTokens(answerText) },
  );
  return { content, toolCalls, finishReason, usage };
}

function makeUsage(u: NonNullable<ScriptedReply['usage']>): Usage {
  return {
    prompt_tokens: u.prompt_tokens,
    completion_tokens: u.completion_tokens,
    total_tokens: u.prompt_tokens + u.completion_tokens,
    prompt_tokens_details: { cached_tokens: u.cached_tokens ?? 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: u.reasoning_tokens ?? 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

/**
 * With tools (and tool_choice not "none") the mock calls the forced tool or the first one. After a tool
 * result it answers in text unless a call is forced, so agent loops terminate.
 */
function defaultAnswer(request: ChatRequest, newCallId: () => string): { content: string | null; toolCalls: ReplyToolCall[] } {
  const tool = chooseTool(request);
  if (tool) {
    const args = isRecord(tool.parameters) ? sampleFromSchema(tool.parameters) : {};
    return { content: null, toolCalls: [{ id: newCallId(), name: tool.name, arguments: JSON.stringify(args) }] };
  }
  const text = `mock answer to: ${lastUserText(request.messages, 60)}`;
  const format = request.response_format;
  if (format?.type === 'json_object') return { content: JSON.stringify({ answer: text }), toolCalls: [] };
  if (format?.type === 'json_schema' && isRecord(format.json_schema)) {
    return { content: JSON.stringify(sampleFromSchema(format.json_schema.schema ?? {})), toolCalls: [] };
  }
  return { content: text, toolCalls: [] };
}

function chooseTool(request: ChatRequest): { name: string; parameters: unknown } | undefined {
  const choice = request.tool_choice;
  if (choice === 'none') return undefined;
  const tools = (request.tools ?? [])
    .map((t) => t.function)
    .filter(isRecord)
    .map((f) => ({ name: String(f.name), parameters: f.parameters }));
  if (tools.length === 0) return undefined;
  const forced = isRecord(choice) && isRecord(choice.function) ? String(choice.function.name) : undefined;
  const afterToolResult = request.messages.at(-1)?.role === 'tool';
  if (!forced && choice !== 'required' && afterToolResult) return undefined;
  return tools.find((t) => t.name === forced) ?? tools[0];
}
