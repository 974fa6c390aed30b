// A Responses API request (POST /v1/responses) read into the chat-completions body the
// pipeline runs: input items become messages, instructions a system message, function
// tools chat tools, text.format a response_format, max_output_tokens
// max_completion_tokens; the `optimizer` annotation comes from the body or, as a JSON
// string, from metadata.optimizer. What the gateway cannot honour without state or
// built-in tools it does not run (previous_response_id, store, web_search, …) is refused
// with a 400 naming the field, never ignored. What the answer echoes is kept aside.
import { z } from 'zod';
import { optimizerAnnotation } from '@optimizer/schema';
import { ApiError } from '../errors.ts';

/** What the Responses object echoes of its request (the gateway answers statelessly). */
export interface ResponsesEcho {
  instructions: string | null;
  max_output_tokens: number | null;
  temperature: number | null;
  top_p: number | null;
  tools: unknown[];
  tool_choice: unknown;
  text: { format: unknown };
  metadata: Record<string, string>;
  parallel_tool_calls: boolean;
  user: string | null;
}

export interface ResponsesRequest {
  /** The chat-completions body the pipeline runs (the annotation under `optimizer`). */
  chat: Record<string, unknown>;
  echo: ResponsesEcho;
}

type Json = Record<string, unknown>;

function refuse(param: string, message: string): never {
  throw new ApiError('invalid_request', `${param}: ${message}`, { param });
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const present = (v: unknown) => v !== undefined && v !== null;

/** Fields read and translated below; any other field is refused by name. */
const KNOWN = new Set([
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'text',
  'max_output_tokens',
  'temperature',
  'top_p',
  'metadata',
  'stream',
  'stream_options',
  'optimizer',
  'parallel_tool_calls',
  'user',
  'safety_identifier',
  'prompt_cache_key',
  'store',
  'include',
  'truncation',
  'service_tier',
  'reasoning',
  'background',
]);

/** Fields that need state or machinery the gateway does not keep: refused whenever set, with why. */
const STATEFUL: Record<string, string> = {
  previous_response_id: 'the gateway keeps no responses; send the whole conversation in `input`.',
  conversation: 'the gateway keeps no conversations; send the whole conversation in `input`.',
  prompt: 'stored prompts are not supported; send the prompt in `input` and `instructions`.',
  max_tool_calls: 'not supported; the gateway runs no built-in tools.',
  top_logprobs: 'log probabilities are not supported on /v1/responses.',
};

function text(v: unknown, param: string): string {
  if (typeof v !== 'string') refuse(param, 'must be a string.');
  return v;
}

/** A message's content parts as chat content: a string when it is all text, else chat parts. */
function content(parts: unknown, param: string): string | Json[] {
  if (typeof parts === 'string') return parts;
  if (!Array.isArray(parts)) refuse(param, 'must be a string or an array of content parts.');
  const out: Json[] = [];
  parts.forEach((p, i) => {
    const at = `${param}.${i}`;
    if (!isObject(p)) refuse(at, 'must be a content part object.');
    switch (p.type) {
      case 'input_text':
      case 'output_text':
        out.push({ type: 'text', text: text(p.text, `${at}.text`) });
        break;
      case 'input_image':
        if (typeof p.image_url !== 'string') refuse(`${at}.image_url`, 'an image is sent as a URL or data URL (file_id is not supported).');
        out.push({ type: 'image_url', image_url: { url: p.image_url, ...(typeof p.detail === 'string' ? { detail: p.detail } : {}) } });
        break;
      default:
        refuse(`${at}.type`, `content part type ${JSON.stringify(p.type)} is not supported (input_text, output_text and input_image are).`);
    }
  });
  return out.every((p) => p.type === 'text') ? out.map((p) => p.text as string).join('') : out;
}

/** A function_call_output's output as the tool message's text. */
function toolOutput(v: unknown, param: string): string {
  if (typeof v === 'string') return v;
  const c = content(v, param);
  if (typeof c !== 'string') refuse(param, 'a tool output is text.');
  return c;
}

/** The input items as chat messages (function calls join the assistant turn they follow). */
function messages(input: unknown): Json[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  if (!Array.isArray(input) || input.length === 0) refuse('input', 'a string or a non-empty array of input items is required.');
  const out: Json[] = [];
  input.forEach((item, i) => {
    const at = `input.${i}`;
    if (!isObject(item)) refuse(at, 'must be an input item object.');
    const type = item.type ?? 'message';
    if (type === 'message') {
      const role = item.role;
      if (role !== 'user' && role !== 'assistant' && role !== 'system' && role !== 'developer') refuse(`${at}.role`, 'must be user, assistant, system or developer.');
      const c = content(item.content, `${at}.content`);
      if (role === 'assistant' && typeof c !== 'string') refuse(`${at}.content`, 'an assistant message is text.');
      out.push({ role, content: c });
      return;
    }
    if (type === 'function_call') {
      const call = { id: text(item.call_id, `${at}.call_id`), type: 'function', function: { name: text(item.name, `${at}.name`), arguments: text(item.arguments, `${at}.arguments`) } };
      const last = out.at(-1);
      if (last?.role === 'assistant') last.tool_calls = [...((last.tool_calls as Json[] | undefined) ?? []), call];
      else out.push({ role: 'assistant', content: null, tool_calls: [call] });
      return;
    }
    if (type === 'function_call_output') {
      out.push({ role: 'tool', tool_call_id: text(item.call_id, `${at}.call_id`), content: toolOutput(item.output, `${at}.output`) });
      return;
    }
    if (type === 'item_reference') refuse(`${at}.type`, 'item references need stored responses, which the gateway does not keep; send the items themselves (with the AI SDK, set providerOptions.openai.store to false).');
    refuse(`${at}.type`, `input item type ${JSON.stringify(type)} is not supported (message, function_call and function_call_output are).`);
  });
  return out;
}

function tools(v: unknown): Json[] {
  if (!Array.isArray(v)) refuse('tools', 'must be an array.');
  return v.map((t, i) => {
    if (!isObject(t)) refuse(`tools.${i}`, 'must be a tool object.');
    if (t.type !== 'function') refuse(`tools.${i}.type`, `built-in tool ${JSON.stringify(t.type)} is not supported; only function tools are.`);
    const fn: Json = { name: text(t.name, `tools.${i}.name`) };
    if (present(t.description)) fn.description = t.description;
    if (present(t.parameters)) fn.parameters = t.parameters;
    if (present(t.strict)) fn.strict = t.strict;
    return { type: 'function', function: fn };
  });
}

function toolChoice(v: unknown): unknown {
  if (v === 'auto' || v === 'none' || v === 'required') return v;
  if (isObject(v) && v.type === 'function') return { type: 'function', function: { name: text(v.name, 'tool_choice.name') } };
  refuse('tool_choice', 'must be auto, none, required or {"type":"function","name":…}.');
}

/** text.format as a chat response_format (undefined for plain text). */
function responseFormat(format: unknown): Json | undefined {
  if (!present(format)) return undefined;
  if (!isObject(format)) refuse('text.format', 'must be an object.');
  if (format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  if (format.type === 'json_schema') {
    const schema: Json = { name: text(format.name, 'text.format.name'), schema: format.schema };
    if (present(format.description)) schema.description = format.description;
    if (present(format.strict)) schema.strict = format.strict;
    return { type: 'json_schema', json_schema: schema };
  }
  refuse('text.format.type', 'must be text, json_object or json_schema.');
}

/** The annotation: the body's `optimizer`, else metadata.optimizer as a JSON string. */
function annotation(body: Json, metadata: Json): unknown {
  if (present(body.optimizer)) return body.optimizer;
  const m = metadata.optimizer;
  if (m === undefined) return undefined;
  if (typeof m !== 'string') refuse('metadata.optimizer', 'metadata values are strings: send the annotation as a JSON string.');
  try {
    return JSON.parse(m) as unknown;
  } catch {
    refuse('metadata.optimizer', 'is not valid JSON.');
  }
}

function numberOrNull(v: unknown, param: string): number | null {
  if (!present(v)) return null;
  if (typeof v !== 'number' || !Number.isFinite(v)) refuse(param, 'must be a number.');
  return v;
}

/** Reads a Responses request; throws the catalogue's invalid_request naming the field it cannot take. */
export function readResponsesRequest(body: unknown): ResponsesRequest {
  if (!isObject(body)) refuse('body', 'the body must be a JSON object.');
  for (const [field, why] of Object.entries(STATEFUL)) if (present(body[field])) refuse(field, why);
  for (const field of Object.keys(body)) if (!KNOWN.has(field) && present(body[field])) refuse(field, 'this field is not supported on /v1/responses.');
  if (body.store === true) refuse('store', 'the gateway keeps no responses (store: true is not supported); send store: false or leave it out.');
  if (body.background === true) refuse('background', 'background responses are not supported.');
  if (present(body.include) && (!Array.isArray(body.include) || body.include.length > 0)) refuse('include', 'no extra output can be included.');
  if (present(body.truncation) && body.truncation !== 'disabled') refuse('truncation', 'only "disabled" is supported.');
  if (present(body.service_tier) && body.service_tier !== 'auto' && body.service_tier !== 'default') refuse('service_tier', 'only auto and default are supported.');
  if (present(body.stream) && typeof body.stream !== 'boolean') refuse('stream', 'must be a boolean.');
  if (present(body.metadata) && !isObject(body.metadata)) refuse('metadata', 'must be an object of strings.');
  const metadata = (isObject(body.metadata) ? body.metadata : {}) as Json;

  const chat: Json = { model: body.model, messages: [] };
  const msgs = messages(body.input);
  if (present(body.instructions)) msgs.unshift({ role: 'system', content: text(body.instructions, 'instructions') });
  chat.messages = msgs;
  const echo: ResponsesEcho = {
    instructions: typeof body.instructions === 'string' ? body.instructions : null,
    max_output_tokens: numberOrNull(body.max_output_tokens, 'max_output_tokens'),
    temperature: numberOrNull(body.temperature, 'temperature'),
    top_p: numberOrNull(body.top_p, 'top_p'),
    tools: Array.isArray(body.tools) ? body.tools : [],
    tool_choice: body.tool_choice ?? 'auto',
    text: { format: isObject(body.text) && present(body.text.format) ? body.text.format : { type: 'text' } },
    metadata: Object.fromEntries(Object.entries(metadata).filter(([, v]) => typeof v === 'string')) as Record<string, string>,
    parallel_tool_calls: body.parallel_tool_calls !== false,
    user: typeof body.user === 'string' ? body.user : null,
  };
  if (echo.max_output_tokens !== null) chat.max_completion_tokens = echo.max_output_tokens;
  if (echo.temperature !== null) chat.temperature = echo.temperature;
  if (echo.top_p !== null) chat.top_p = echo.top_p;
  if (present(body.tools)) chat.tools = tools(body.tools);
  if (present(body.tool_choice)) chat.tool_choice = toolChoice(body.tool_choice);
  if (present(body.parallel_tool_calls)) chat.parallel_tool_calls = body.parallel_tool_calls;
  if (present(body.text)) {
    if (!isObject(body.text)) refuse('text', 'must be an object.');
    const format = responseFormat(body.text.format);
    if (format) chat.response_format = format;
    if (present(body.text.verbosity)) chat.verbosity = body.text.verbosity;
  }
  if (present(body.reasoning)) {
    if (!isObject(body.reasoning)) refuse('reasoning', 'must be an object.');
    if (present(body.reasoning.summary) || present(body.reasoning.generate_summary)) refuse('reasoning.summary', 'reasoning summaries are not supported.');
    if (present(body.reasoning.effort)) chat.reasoning_effort = body.reasoning.effort;
  }
  for (const field of ['user', 'safety_identifier', 'prompt_cache_key'] as const) if (present(body[field])) chat[field] = body[field];
  if (body.stream === true) {
    chat.stream = true;
    chat.stream_options = { include_usage: true }; // the final event carries usage
  }
  const optimizer = annotation(body, metadata);
  if (optimizer !== undefined) chat.optimizer = optimizer;
  return { chat, echo };
}

/** The request's shape as the OpenAPI document shows it (the reader above is what checks it). */
export const responsesRequestSchema = z.looseObject({
  model: z.string().min(1).describe('A model name, or "auto" to route per step.'),
  input: z.union([z.string(), z.array(z.looseObject({ type: z.enum(['message', 'function_call', 'function_call_output']).optional() }))]).describe('A string, or message, function_call and function_call_output items.'),
  instructions: z.string().optional(),
  tools: z.array(z.looseObject({ type: z.literal('function'), name: z.string() })).optional().describe('Function tools only: built-in tools are refused.'),
  tool_choice: z.union([z.enum(['auto', 'none', 'required']), z.looseObject({ type: z.literal('function'), name: z.string() })]).optional(),
  text: z.looseObject({ format: z.looseObject({ type: z.enum(['text', 'json_object', 'json_schema']) }).optional() }).optional(),
  max_output_tokens: z.number().int().optional(),
  temperature: z.number().optional(),
  top_p: z.number().optional(),
  metadata: z.record(z.string(), z.string()).optional().describe('Echoed on the response; `optimizer` may hold the annotation as a JSON string.'),
  stream: z.boolean().optional(),
  store: z.literal(false).optional().describe('The gateway keeps no responses: `true` is refused.'),
  optimizer: optimizerAnnotation.optional(),
});
