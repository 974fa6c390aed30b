// Request validation as strict as the real Chat Completions endpoint (unknown fields are rejected).
import { isRecord } from '../guards.ts';
import { invalidRequest, type ApiError } from './errors.ts';
import { typeMessage } from './describe.ts';
import { validateMessages } from './validate-messages.ts';
import { contentText } from './text.ts';

/** A request that passed validation. */
export interface ChatRequest {
  model: string;
  messages: Record<string, unknown>[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean } | null;
  tools?: Record<string, unknown>[];
  tool_choice?: unknown;
  response_format?: Record<string, unknown>;
  [field: string]: unknown;
}

const KNOWN_FIELDS = new Set([
  'model', 'messages', 'audio', 'frequency_penalty', 'function_call', 'functions', 'logit_bias', 'logprobs',
  'max_completion_tokens', 'max_tokens', 'metadata', 'modalities', 'n', 'parallel_tool_calls', 'prediction',
  'presence_penalty', 'prompt_cache_key', 'prompt_cache_retention', 'reasoning_effort', 'response_format',
  'safety_identifier', 'seed', 'service_tier', 'stop', 'store', 'stream', 'stream_options', 'temperature',
  'tool_choice', 'tools', 'top_logprobs', 'top_p', 'user', 'verbosity', 'web_search_options',
]);

export function validateChatRequest(body: unknown): ApiError | null {
  if (!isRecord(body)) return invalidRequest(typeMessage('body', 'an object', body), null, 'invalid_type');
  const unknown = Object.keys(body).filter((key) => !KNOWN_FIELDS.has(key));
  if (unknown.length === 1) return invalidRequest(`Unrecognized request argument supplied: ${unknown[0]}`);
  if (unknown.length > 1) return invalidRequest(`Unrecognized request arguments supplied: ${unknown.join(', ')}`);
  if (body.model === undefined || body.model === null) return invalidRequest('you must provide a model parameter');
  if (typeof body.model !== 'string') return invalidRequest(typeMessage('model', 'a string', body.model), 'model', 'invalid_type');
  return (
    validateMessages(body.messages) ??
    validateStream(body) ??
    validateTools(body) ??
    validateResponseFormat(body)
  );
}

function validateStream(body: Record<string, unknown>): ApiError | null {
  if (body.stream != null && typeof body.stream !== 'boolean') {
    return invalidRequest(typeMessage('stream', 'a boolean', body.stream), 'stream', 'invalid_type');
  }
  if (body.stream_options != null) {
    if (body.stream !== true) {
      return invalidRequest("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options');
    }
    if (!isRecord(body.stream_options)) {
      return invalidRequest(typeMessage('stream_options', 'an object', body.stream_options), 'stream_options', 'invalid_type');
    }
  }
  return null;
}

function validateTools(body: Record<string, unknown>): ApiError | null {
  const tools = body.tools;
  if (tools != null) {
    if (!Array.isArray(tools)) return invalidRequest(typeMessage('tools', 'an array of objects', tools), 'tools', 'invalid_type');
    if (tools.length === 0) {
      return invalidRequest(
        "Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array instead.",
        'tools',
        'empty_array',
      );
    }
    for (let i = 0; i < tools.length; i++) {
      const tool: unknown = tools[i];
      if (!isRecord(tool)) return invalidRequest(typeMessage(`tools[${i}]`, 'an object', tool), `tools[${i}]`, 'invalid_type');
      if (tool.type === 'function' && (!isRecord(tool.function) || typeof tool.function.name !== 'string')) {
        const param = `tools[${i}].function.name`;
        return invalidRequest(`Missing required parameter: '${param}'.`, param, 'missing_required_parameter');
      }
    }
  }
  if (body.tool_choice != null && tools == null) {
    return invalidRequest("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.", 'tool_choice');
  }
  return null;
}

function validateResponseFormat(body: Record<string, unknown>): ApiError | null {
  const format = body.response_format;
  if (format == null) return null;
  if (!isRecord(format)) return invalidRequest(typeMessage('response_format', 'an object', format), 'response_format', 'invalid_type');
  if (format.type !== 'text' && format.type !== 'json_object' && format.type !== 'json_schema') {
    return invalidRequest(
      `Invalid value: '${String(format.type)}'. Supported values are: 'text', 'json_object', and 'json_schema'.`,
      'response_format.type',
      'invalid_value',
    );
  }
  if (format.type === 'json_schema' && (!isRecord(format.json_schema) || typeof format.json_schema.name !== 'string')) {
    return invalidRequest("Missing required parameter: 'response_format.json_schema.name'.", 'response_format.json_schema.name', 'missing_required_parameter');
  }
  if (format.type === 'json_object') {
    const messages = body.messages as Record<string, unknown>[];
    if (!messages.some((m) => /json/i.test(contentText(m.content)))) {
      return invalidRequest(
        "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
        'messages',
      );
    }
  }
  return null;
}
