// Request validation as strict as the real Messages endpoint: unknown top-level fields,
// a missing max_tokens, out-of-range sampling, malformed tools and tool_choice, and
// thinking settings Anthropic refuses are all 400 invalid_request_error.
import { isRecord, type JsonObject } from '../guards.ts';
import { invalidRequest, type AnthropicError } from './errors.ts';
import { familyOf } from './models.ts';
import { validateMessages } from './validate-messages.ts';

/** A request that passed validation. */
export interface MessagesRequest {
  model: string;
  max_tokens: number;
  messages: JsonObject[];
  system?: string | JsonObject[];
  stop_sequences?: string[];
  stream?: boolean;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  tools?: JsonObject[];
  tool_choice?: { type: 'auto' | 'any' | 'tool' | 'none'; name?: string; disable_parallel_tool_use?: boolean };
  thinking?: { type: 'enabled' | 'disabled'; budget_tokens?: number };
  metadata?: { user_id?: string };
  service_tier?: string;
}

const KNOWN_FIELDS = new Set([
  'model', 'messages', 'max_tokens', 'system', 'stop_sequences', 'stream', 'temperature', 'top_p', 'top_k',
  'tools', 'tool_choice', 'thinking', 'metadata', 'service_tier',
]);
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const extra = (path: string) => invalidRequest(`${path}: Extra inputs are not permitted`);

export function validateMessagesRequest(body: unknown): AnthropicError | null {
  if (!isRecord(body)) return invalidRequest('body: Input should be a valid dictionary');
  const unknown = Object.keys(body).find((key) => !KNOWN_FIELDS.has(key));
  if (unknown) return extra(unknown);
  if (body.model === undefined) return invalidRequest('model: Field required');
  if (typeof body.model !== 'string') return invalidRequest('model: Input should be a valid string');
  if (body.max_tokens === undefined) return invalidRequest('max_tokens: Field required');
  if (!isInt(body.max_tokens)) return invalidRequest('max_tokens: Input should be a valid integer');
  if (body.max_tokens < 1) return invalidRequest('max_tokens: Input should be greater than or equal to 1');
  const limit = familyOf(body.model)?.maxOutputTokens;
  if (limit !== undefined && body.max_tokens > limit) {
    return invalidRequest(`max_tokens: ${body.max_tokens} > ${limit}, which is the maximum allowed number of output tokens for ${body.model}`);
  }
  if (body.messages === undefined) return invalidRequest('messages: Field required');
  return (
    validateMessages(body.messages) ??
    validateSystem(body.system) ??
    validateSampling(body) ??
    validateTools(body) ??
    validateThinking(body) ??
    validateOther(body)
  );
}

function validateSystem(system: unknown): AnthropicError | null {
  if (system === undefined || typeof system === 'string') return null;
  if (!Array.isArray(system)) return invalidRequest('system: Input should be a valid string or a list of text blocks');
  const bad = system.findIndex((b: unknown) => !isRecord(b) || b.type !== 'text' || typeof b.text !== 'string' || b.text === '');
  return bad === -1 ? null : invalidRequest(`system.${bad}: system text blocks must be non-empty text blocks`);
}

function validateSampling(body: JsonObject): AnthropicError | null {
  for (const field of ['temperature', 'top_p'] as const) {
    const v = body[field];
    if (v === undefined) continue;
    if (typeof v !== 'number') return invalidRequest(`${field}: Input should be a valid number`);
    if (v < 0) return invalidRequest(`${field}: Input should be greater than or equal to 0`);
    if (v > 1) return invalidRequest(`${field}: Input should be less than or equal to 1`);
  }
  if (body.top_k !== undefined && (!isInt(body.top_k) || body.top_k < 0)) return invalidRequest('top_k: Input should be a non-negative integer');
  if (body.temperature !== undefined && body.top_p !== undefined && familyOf(body.model as string)?.oneSampler) {
    return invalidRequest('`temperature` and `top_p` cannot both be specified for this model. Please use only one.');
  }
  const stops = body.stop_sequences;
  if (stops !== undefined && (!Array.isArray(stops) || stops.some((s: unknown) => typeof s !== 'string' || s === ''))) {
    return invalidRequest('stop_sequences: Input should be a list of non-empty strings');
  }
  return null;
}

function validateTool(tool: unknown, i: number): AnthropicError | null {
  if (!isRecord(tool)) return invalidRequest(`tools.${i}: Input should be a valid dictionary`);
  if (tool.type !== undefined && tool.type !== 'custom') {
    return invalidRequest(`tools.${i}: Input tag '${String(tool.type)}' found using 'type' does not match any of the expected tags: 'custom', 'bash_20250124', 'text_editor_20250728', 'web_search_20250305'`);
  }
  const unknown = Object.keys(tool).find((k) => !['type', 'name', 'description', 'input_schema', 'cache_control'].includes(k));
  if (unknown) return extra(`tools.${i}.custom.${unknown}`);
  if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name)) return invalidRequest(`tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
  if (tool.input_schema === undefined) return invalidRequest(`tools.${i}.custom.input_schema: Field required`);
  if (!isRecord(tool.input_schema) || tool.input_schema.type !== 'object') return invalidRequest(`tools.${i}.custom.input_schema.type: Input should be 'object'`);
  return null;
}

function validateTools(body: JsonObject): AnthropicError | null {
  const tools = body.tools;
  if (tools !== undefined) {
    if (!Array.isArray(tools)) return invalidRequest('tools: Input should be a valid list');
    for (let i = 0; i < tools.length; i++) {
      const bad = validateTool(tools[i], i);
      if (bad) return bad;
    }
    const names = tools.map((t: JsonObject) => t.name);
    if (new Set(names).size !== names.length) return invalidRequest('tools: Tool names must be unique.');
  }
  const choice = body.tool_choice;
  if (choice === undefined) return null;
  if (!isRecord(choice) || !['auto', 'any', 'tool', 'none'].includes(choice.type as string)) {
    return invalidRequest("tool_choice: Input tag found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'");
  }
  const allowed = choice.type === 'tool' ? ['type', 'name', 'disable_parallel_tool_use'] : choice.type === 'none' ? ['type'] : ['type', 'disable_parallel_tool_use'];
  const unknown = Object.keys(choice).find((k) => !allowed.includes(k));
  if (unknown) return extra(`tool_choice.${choice.type}.${unknown}`);
  if ((choice.type === 'any' || choice.type === 'tool') && !(Array.isArray(tools) && tools.length > 0)) {
    return invalidRequest(`tool_choice: tool_choice.type '${choice.type}' may only be specified while providing tools.`);
  }
  if (choice.type === 'tool') {
    if (typeof choice.name !== 'string') return invalidRequest('tool_choice.tool.name: Field required');
    if (!(tools as JsonObject[]).some((t) => t.name === choice.name)) return invalidRequest(`tool_choice: Tool '${choice.name}' not found in tools`);
  }
  return null;
}

function validateThinking(body: JsonObject): AnthropicError | null {
  const t = body.thinking;
  if (t === undefined) return null;
  if (!isRecord(t) || (t.type !== 'enabled' && t.type !== 'disabled')) {
    return invalidRequest("thinking: Input tag found using 'type' does not match any of the expected tags: 'enabled', 'disabled'");
  }
  if (t.type === 'disabled') return null;
  if (!isInt(t.budget_tokens)) return invalidRequest('thinking.enabled.budget_tokens: Field required');
  if (t.budget_tokens < 1024) return invalidRequest('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
  if ((body.max_tokens as number) <= t.budget_tokens) return invalidRequest('`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size');
  if (body.temperature !== undefined && body.temperature !== 1) return invalidRequest('`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#important-considerations-when-using-extended-thinking');
  if (typeof body.top_p === 'number' && body.top_p < 0.95) return invalidRequest('`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled.');
  const choice = body.tool_choice as JsonObject | undefined;
  if (choice?.type === 'any' || choice?.type === 'tool') return invalidRequest('Thinking may not be enabled when tool_choice forces tool use.');
  return null;
}

function validateOther(body: JsonObject): AnthropicError | null {
  if (body.stream !== undefined && typeof body.stream !== 'boolean') return invalidRequest('stream: Input should be a valid boolean');
  if (body.metadata !== undefined) {
    if (!isRecord(body.metadata)) return invalidRequest('metadata: Input should be a valid dictionary');
    const unknown = Object.keys(body.metadata).find((k) => k !== 'user_id');
    if (unknown) return extra(`metadata.${unknown}`);
  }
  if (body.service_tier !== undefined && body.service_tier !== 'auto' && body.service_tier !== 'standard_only') {
    return invalidRequest("service_tier: Input should be 'auto' or 'standard_only'");
  }
  return null;
}
