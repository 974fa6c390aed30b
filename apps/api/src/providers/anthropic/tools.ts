// Tools, tool_choice, parallel_tool_calls and response_format → Anthropic's `tools`
// and `tool_choice`.
//
// JSON mode: Anthropic's Messages API has no response_format, so structured output is
// a tool the model is made to call. `json_output` carries the requested schema
// (`{type: 'object'}` for json_object) as its input_schema; the response and stream
// translators turn that tool's input back into the message content, as JSON text, and
// report finish_reason "stop". With no client tools (or tool_choice "none") the call
// forces json_output; with client tools and tool_choice "auto", the model must call
// some tool (`any`): a client tool, or json_output for its final answer. A function's
// `strict` flag is not sent: the schema is, and Anthropic follows it without a strict mode.
import { refuse } from './unsupported.ts';
import type { AnthropicTool, AnthropicToolChoice } from './wire.ts';

type Json = Record<string, unknown>;

/** The tool that carries a JSON-mode answer; a client tool may not use the name. */
export const JSON_TOOL = 'json_output';

export interface ToolConfig {
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  /** The call forces tool use (any or a named tool), which extended thinking does not allow. */
  forcesTool: boolean;
}

function clientTool(t: Json): AnthropicTool {
  if (t.type !== 'function') refuse(`a "${String(t.type)}" tool (only function tools)`);
  const fn = (t.function ?? {}) as Json;
  const name = String(fn.name ?? '');
  if (name === JSON_TOOL) refuse(`a tool named ${JSON_TOOL} (the name carries JSON-mode answers)`);
  const schema = (fn.parameters ?? { type: 'object', properties: {} }) as Json;
  if (schema.type !== 'object') refuse(`tool parameters whose root is not an object (${name})`);
  return { name, ...(typeof fn.description === 'string' ? { description: fn.description } : {}), input_schema: schema };
}

/** The client's tool_choice in Anthropic's terms, before JSON mode and parallelism. */
function choiceOf(choice: unknown): AnthropicToolChoice | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'auto') return { type: 'auto' };
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any' };
  const c = choice as Json;
  if (c.type === 'function' && typeof (c.function as Json | undefined)?.name === 'string') return { type: 'tool', name: (c.function as Json).name as string };
  return refuse(`tool_choice ${JSON.stringify(choice)}`);
}

/** The JSON-mode tool for a response_format, or null when the format is plain text. */
function jsonTool(format: unknown): AnthropicTool | null {
  if (format === undefined || format === null) return null;
  const f = format as Json;
  const describe = 'Give your final answer by calling this tool: its input is the answer, as JSON.';
  if (f.type === 'text') return null;
  if (f.type === 'json_object') return { name: JSON_TOOL, description: describe, input_schema: { type: 'object' } };
  if (f.type === 'json_schema') {
    const js = (f.json_schema ?? {}) as Json;
    const schema = (js.schema ?? { type: 'object' }) as Json;
    if (schema.type !== 'object') refuse('a json_schema whose root is not an object');
    const description = typeof js.description === 'string' ? `${describe} ${js.description}` : describe;
    return { name: JSON_TOOL, description, input_schema: schema };
  }
  return refuse(`response_format ${JSON.stringify(f.type)}`);
}

export function toolConfig(body: Json): ToolConfig {
  const tools = Array.isArray(body.tools) ? (body.tools as Json[]).map(clientTool) : [];
  let choice = choiceOf(body.tool_choice);
  const json = jsonTool(body.response_format);
  if (tools.length === 0 && choice && choice.type !== 'auto' && choice.type !== 'none') refuse('tool_choice without tools');
  if (tools.length === 0 && !json) return { forcesTool: false };

  const all = [...tools];
  if (json) {
    if (choice?.type === 'any') refuse('tool_choice "required" together with response_format');
    if (tools.length === 0 || choice?.type === 'none') {
      all.push(json);
      choice = { type: 'tool', name: JSON_TOOL };
    } else if (choice?.type !== 'tool') {
      all.push(json);
      choice = { type: 'any' };
    }
  }
  if (body.parallel_tool_calls === false && choice?.type !== 'none') choice = { ...(choice ?? { type: 'auto' }), disable_parallel_tool_use: true };
  return {
    tools: all,
    ...(choice ? { tool_choice: choice } : {}),
    forcesTool: choice?.type === 'any' || choice?.type === 'tool',
  };
}
