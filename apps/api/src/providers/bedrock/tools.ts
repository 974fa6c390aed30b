// OpenAI tools, tool_choice and response_format → Converse toolConfig.
//
// - tools → toolConfig.tools[{toolSpec: {name, description, inputSchema: {json}}}].
// - tool_choice auto → {auto: {}}, required → {any: {}}, a named function → {tool: {name}}.
// - tool_choice none: Converse has no "none", so the tools are withheld — the model
//   cannot call what it is not shown. A conversation that already holds tool calls
//   needs toolConfig on Converse, so none is refused there.
// - parallel_tool_calls false is refused (Converse cannot forbid parallel calls).
// - `strict` (on a function or a json_schema) has no Converse switch: the schema is
//   sent and the model follows it, as on the other translating adapters.
// - response_format json_schema / json_object → one forced tool, JSON_TOOL, whose
//   input schema is the client's schema ({type: object} for json_object); the
//   response turns its input back into message content with finish_reason stop.
//   Combined with client tools it is refused (forcing one would forbid the others).
// - Reasoning (thinking) cannot be on while a tool is forced: refused together.
import type { ChatBody } from '../types.ts';
import type { Result } from './messages.ts';
import { JSON_TOOL, type ConverseRequest, type ToolChoice, type ToolSpec } from './wire.ts';

type ToolConfig = ConverseRequest['toolConfig'];

const EMPTY_SCHEMA = { type: 'object', properties: {} };

function jsonTool(body: ChatBody): Result<ToolConfig> | null {
  const format = body.response_format as Record<string, any> | undefined | null;
  if (!format || format.type === 'text') return null;
  if (format.type !== 'json_schema' && format.type !== 'json_object') return { ok: false, refusal: `response_format ${String(format.type)}` };
  if (body.tools != null) return { ok: false, refusal: 'response_format json output together with tools' };
  const named = format.type === 'json_schema' ? (format.json_schema ?? {}) : {};
  const description = [
    'Respond by calling this tool: its input is the whole answer, as JSON',
    named.name ? ` (${String(named.name)})` : '',
    named.description ? `: ${String(named.description)}` : '.',
  ].join('');
  const schema = format.type === 'json_schema' ? (named.schema ?? EMPTY_SCHEMA) : { type: 'object' };
  return { ok: true, value: { tools: [{ toolSpec: { name: JSON_TOOL, description, inputSchema: { json: schema } } }], toolChoice: { tool: { name: JSON_TOOL } } } };
}

function toolSpecs(tools: unknown): Result<ToolSpec[]> {
  if (!Array.isArray(tools)) return { ok: false, refusal: 'tools that are not a list' };
  const specs: ToolSpec[] = [];
  for (const t of tools as Record<string, any>[]) {
    if (t?.type !== 'function') return { ok: false, refusal: `${String(t?.type)} tools` };
    const f = t.function ?? {};
    if (typeof f.name !== 'string') return { ok: false, refusal: 'a function tool without a name' };
    if (f.name === JSON_TOOL) return { ok: false, refusal: `a tool named ${JSON_TOOL} (the name is reserved for response_format)` };
    specs.push({ toolSpec: { name: f.name, ...(f.description ? { description: f.description } : {}), inputSchema: { json: f.parameters ?? EMPTY_SCHEMA } } });
  }
  return { ok: true, value: specs };
}

function toolChoice(choice: unknown): Result<ToolChoice | undefined> | 'none' {
  if (choice === undefined || choice === null || choice === 'auto') return { ok: true, value: choice === 'auto' ? { auto: {} } : undefined };
  if (choice === 'none') return 'none';
  if (choice === 'required') return { ok: true, value: { any: {} } };
  const c = choice as Record<string, any>;
  if (c.type === 'function' && typeof c.function?.name === 'string') return { ok: true, value: { tool: { name: c.function.name } } };
  return { ok: false, refusal: `tool_choice ${JSON.stringify(choice)}` };
}

/** The toolConfig for this request (undefined when it has none), or what cannot be done. */
export function translateTools(body: ChatBody, hasToolBlocks: boolean): Result<ToolConfig> {
  const thinking = body.reasoning_effort != null && body.reasoning_effort !== 'none';
  const json = jsonTool(body);
  if (json) {
    if (json.ok && thinking) return { ok: false, refusal: 'reasoning_effort together with response_format json output (a forced tool)' };
    return json;
  }
  if (body.parallel_tool_calls === false) return { ok: false, refusal: 'parallel_tool_calls false' };
  if (body.tools == null) {
    if (body.tool_choice != null) return { ok: false, refusal: 'tool_choice without tools' };
    return hasToolBlocks ? { ok: false, refusal: 'tool calls in the conversation without tools (Converse needs the tool definitions)' } : { ok: true, value: undefined };
  }
  const specs = toolSpecs(body.tools);
  if (!specs.ok) return specs;
  const choice = toolChoice(body.tool_choice);
  if (choice === 'none') {
    return hasToolBlocks ? { ok: false, refusal: 'tool_choice none with tool calls in the conversation' } : { ok: true, value: undefined };
  }
  if (!choice.ok) return choice;
  if (thinking && choice.value && !('auto' in choice.value)) return { ok: false, refusal: 'reasoning_effort together with a forced tool_choice' };
  if (specs.value.length === 0) return { ok: false, refusal: 'an empty tools list' };
  return { ok: true, value: { tools: specs.value, ...(choice.value ? { toolChoice: choice.value } : {}) } };
}
