// OpenAI-compatible vendors that differ from OpenAI on the wire, as dialects of the OpenAI
// mock: the fields they reject and how, their error bodies, where they report usage, and
// (Azure) their path and key header. Without a dialect the mock is OpenAI itself.
import { timingSafeEqual } from 'node:crypto';
import { isRecord, type JsonObject } from '../guards.ts';
import type { ApiError, ErrorEnvelope } from './errors.ts';
import type { Reply, Usage } from './reply.ts';

export type DialectName = 'mistral' | 'groq' | 'deepseek' | 'azure' | 'xai';

export interface MockDialect {
  /** Vendor-specific rejections, before OpenAI's validation; the error is sent as is. */
  validate?(body: JsonObject): ApiError | null;
  /** The request in OpenAI's terms, for the rest of the mock to read. */
  toOpenAI?(body: JsonObject): JsonObject;
  /** An OpenAI error envelope in the vendor's shape. */
  errorBody?(status: number, e: ErrorEnvelope['error']): unknown;
  /** The non-stream answer as the vendor sends it. */
  completion?(body: JsonObject, reply: Reply): JsonObject;
  /** The stream chunks as the vendor sends them. */
  chunks?(chunks: JsonObject[], reply: Reply, includeUsage: boolean): JsonObject[];
  /** Tool-call ids in the vendor's format. */
  callId?(seq: number, n: number): string;
  /** Azure OpenAI: /openai/deployments/{deployment}/chat/completions?api-version=…, `api-key` header. */
  azure?: boolean;
}

const raw = (status: number, body: unknown): ApiError => ({ status, body: body as ErrorEnvelope });

const finishing = (chunks: JsonObject[]): JsonObject | undefined =>
  chunks.findLast((c) => Array.isArray(c.choices) && c.choices.some((ch) => isRecord(ch) && ch.finish_reason != null));

const plainUsage = (u: Usage) => ({ prompt_tokens: u.prompt_tokens, total_tokens: u.total_tokens, completion_tokens: u.completion_tokens });
const mistralUsage = (u: Usage) => ({
  ...plainUsage(u),
  ...(u.prompt_tokens_details.cached_tokens > 0 ? { prompt_tokens_details: { cached_tokens: u.prompt_tokens_details.cached_tokens } } : {}),
});

// Mistral: a strict request model (HTTP 422 "Extra inputs are not permitted"), tool-call
// ids of nine letters or digits, usage on the last chunk of every stream (it has no
// stream_options) with prompt-cache hits as prompt_tokens_details.cached_tokens, errors as
// {"object": "error", ...} and the gateway's 401 {"message"}.
const MISTRAL_FIELDS = new Set([
  'model', 'messages', 'temperature', 'top_p', 'max_tokens', 'stream', 'stop', 'random_seed', 'response_format', 'tools',
  'tool_choice', 'presence_penalty', 'frequency_penalty', 'n', 'prediction', 'parallel_tool_calls', 'prompt_mode', 'safe_prompt',
  'prompt_cache_key',
]);
const MISTRAL_MESSAGE_FIELDS: Record<string, Set<string>> = {
  system: new Set(['role', 'content']),
  user: new Set(['role', 'content']),
  assistant: new Set(['role', 'content', 'tool_calls', 'prefix']),
  tool: new Set(['role', 'content', 'tool_call_id', 'name']),
};
const MISTRAL_ID = /^[A-Za-z0-9]{9}$/;

const mistralValidation = (loc: (string | number)[], type: string, msg: string, input: unknown): ApiError =>
  raw(422, { object: 'error', message: { detail: [{ type, loc, msg, input }] }, type: 'invalid_request_error', param: null, code: null });

function mistralValidate(body: JsonObject): ApiError | null {
  for (const [k, v] of Object.entries(body)) {
    if (!MISTRAL_FIELDS.has(k)) return mistralValidation(['body', k], 'extra_forbidden', 'Extra inputs are not permitted', v);
  }
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (let i = 0; i < messages.length; i++) {
    const m: unknown = messages[i];
    if (!isRecord(m)) continue;
    const allowed = MISTRAL_MESSAGE_FIELDS[String(m.role)];
    if (!allowed) {
      return mistralValidation(['body', 'messages', i], 'union_tag_invalid', `Input tag '${String(m.role)}' found using 'role' does not match any of the expected tags: 'assistant', 'system', 'tool', 'user'`, m);
    }
    const extra = Object.keys(m).find((k) => !allowed.has(k));
    if (extra) return mistralValidation(['body', 'messages', i, String(m.role), extra], 'extra_forbidden', 'Extra inputs are not permitted', m[extra]);
    const ids = [m.tool_call_id, ...(Array.isArray(m.tool_calls) ? m.tool_calls.map((c: unknown) => (isRecord(c) ? c.id : undefined)) : [])];
    const bad = ids.find((id) => typeof id === 'string' && !MISTRAL_ID.test(id));
    if (bad !== undefined) {
      return raw(400, { object: 'error', message: `Tool call id was ${String(bad)} but must be a-z, A-Z, 0-9, with a length of 9.`, type: 'invalid_request_message_error', param: null, code: '3280' });
    }
  }
  return null;
}

const mistral: MockDialect = {
  validate: mistralValidate,
  toOpenAI(body) {
    const { random_seed, safe_prompt: _safe, prompt_mode: _mode, ...rest } = body;
    return { ...rest, ...(random_seed !== undefined ? { seed: random_seed } : {}), ...(rest.tool_choice === 'any' ? { tool_choice: 'required' } : {}) };
  },
  errorBody: (status, e) => (status === 401 ? { message: 'Unauthorized', request_id: 'mockreq0000000000000000000000001' } : { object: 'error', message: e.message, type: e.type, param: e.param, code: e.code }),
  completion: (body, reply) => ({ ...body, usage: mistralUsage(reply.usage) }),
  chunks(chunks, reply) {
    const last = finishing(chunks);
    if (last) last.usage = mistralUsage(reply.usage);
    return chunks;
  },
  callId: (seq, n) => `M${String(seq).padStart(6, '0')}c${n}`.slice(-9).padStart(9, 'X'),
};

// Groq: rejects what it lacks by name, n must be 1, usage also in `x_groq.usage` on the
// last chunk of a stream.
// Prompt-cache hits come as prompt_tokens_details.cached_tokens (on models that cache).
const groqUsage = (u: Usage) => ({
  queue_time: 0.0001, prompt_tokens: u.prompt_tokens, prompt_time: 0.001, completion_tokens: u.completion_tokens, completion_time: 0.01, total_tokens: u.total_tokens, total_time: 0.011,
  ...(u.prompt_tokens_details.cached_tokens > 0 ? { prompt_tokens_details: { cached_tokens: u.prompt_tokens_details.cached_tokens } } : {}),
});
const groqError = (message: string, param?: string): ApiError => raw(400, { error: { message, type: 'invalid_request_error', ...(param ? { param } : {}) } });

const groq: MockDialect = {
  validate(body) {
    for (const k of ['logprobs', 'logit_bias', 'top_logprobs']) if (body[k] != null) return groqError(`property '${k}' is unsupported`, k);
    if (typeof body.n === 'number' && body.n !== 1) return groqError("'n' : number must be at most 1", 'n');
    const named = Array.isArray(body.messages) && body.messages.findIndex((m: unknown) => isRecord(m) && m.name !== undefined);
    if (typeof named === 'number' && named >= 0) return groqError(`'messages.${named}' : property 'name' is unsupported`);
    return null;
  },
  errorBody: (status, e) => (status === 401 ? { error: { message: 'Invalid API Key', type: 'invalid_request_error', code: 'invalid_api_key' } } : { error: { message: e.message, type: e.type, ...(e.code ? { code: e.code } : {}) } }),
  completion: (body, reply) => ({ ...body, usage: groqUsage(reply.usage), x_groq: { id: 'req_mock' } }),
  chunks(chunks, reply) {
    const last = finishing(chunks);
    if (last) last.x_groq = { id: 'req_mock', usage: groqUsage(reply.usage) };
    // With stream_options.include_usage, the usage-only chunk carries Groq's usage object too.
    return chunks.map((c) => (isRecord(c.usage) ? { ...c, usage: groqUsage(reply.usage) } : c));
  },
};

// DeepSeek: text only, JSON mode without schemas, cache hits as prompt_cache_hit_tokens.
function deepseekUsage(u: Usage): JsonObject {
  const hit = u.prompt_tokens_details.cached_tokens;
  const reasoning = u.completion_tokens_details.reasoning_tokens;
  return {
    prompt_tokens: u.prompt_tokens,
    completion_tokens: u.completion_tokens,
    total_tokens: u.total_tokens,
    prompt_cache_hit_tokens: hit,
    prompt_cache_miss_tokens: u.prompt_tokens - hit,
    ...(reasoning ? { completion_tokens_details: { reasoning_tokens: reasoning } } : {}),
  };
}

const deepseek: MockDialect = {
  validate(body) {
    const messages = Array.isArray(body.messages) ? body.messages : [];
    for (let i = 0; i < messages.length; i++) {
      const m: unknown = messages[i];
      const part = isRecord(m) && Array.isArray(m.content) ? m.content.find((p: unknown) => isRecord(p) && p.type !== 'text') : undefined;
      if (isRecord(part)) {
        const message = `Failed to deserialize the JSON body into the target type: messages[${i}]: unknown variant \`${String(part.type)}\`, expected \`text\``;
        return raw(422, { error: { message, type: 'invalid_request_error', param: null, code: 'invalid_request_error' } });
      }
    }
    if (isRecord(body.response_format) && body.response_format.type === 'json_schema') {
      return raw(400, { error: { message: 'This response_format type is unavailable now', type: 'invalid_request_error', param: null, code: 'invalid_request_error' } });
    }
    return null;
  },
  errorBody: (status, e) =>
    status === 401
      ? { error: { message: 'Authentication Fails, Your api key: ****-key is invalid', type: 'authentication_error', param: null, code: 'invalid_request_error' } }
      : { error: e },
  completion: (body, reply) => ({ ...body, usage: deepseekUsage(reply.usage) }),
  chunks: (chunks, reply) => chunks.map((c) => (isRecord(c.usage) ? { ...c, usage: deepseekUsage(reply.usage) } : c)),
};

// Azure OpenAI: the deployment names the model; errors as {"error": {"code", "message"}};
// content filter annotations, and a stream that opens with only prompt_filter_results.
const SAFE = { hate: { filtered: false, severity: 'safe' }, self_harm: { filtered: false, severity: 'safe' }, sexual: { filtered: false, severity: 'safe' }, violence: { filtered: false, severity: 'safe' } };
const PROMPT_FILTER = [{ prompt_index: 0, content_filter_results: SAFE }];

const azure: MockDialect = {
  azure: true,
  errorBody(status, e) {
    if (status === 401) return { error: { code: '401', message: 'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.' } };
    if (status === 404) return { error: { code: '404', message: 'Resource not found' } };
    if (status === 429) return { error: { code: '429', message: 'Requests to the ChatCompletions_Create Operation under Azure OpenAI API have exceeded call rate limit of your current OpenAI S0 pricing tier. Please retry after 1 second.' } };
    if (status >= 500) return { error: { code: 'InternalServerError', message: e.message } };
    return { error: e };
  },
  completion: (body) => ({
    ...body,
    prompt_filter_results: PROMPT_FILTER,
    choices: (body.choices as JsonObject[]).map((c) => ({ ...c, content_filter_results: SAFE })),
  }),
  chunks: (chunks) => [{ choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: PROMPT_FILTER }, ...chunks],
};

// xAI: completion_tokens leave reasoning out; reasoning_tokens are reported beside them
// (completion_tokens_details) and counted in total_tokens.
function xaiUsage(u: Usage): JsonObject {
  const reasoning = u.completion_tokens_details.reasoning_tokens;
  return { ...u, completion_tokens: u.completion_tokens - reasoning };
}

const xai: MockDialect = {
  completion: (body, reply) => ({ ...body, usage: xaiUsage(reply.usage) }),
  chunks: (chunks, reply) => chunks.map((c) => (isRecord(c.usage) ? { ...c, usage: xaiUsage(reply.usage) } : c)),
};

export const dialects: Readonly<Record<DialectName, MockDialect>> = { mistral, groq, deepseek, azure, xai };

/** Azure's chat path: the deployment, or null when the path is not a chat call. */
export function azureDeployment(path: string): string | null {
  const m = /^\/openai\/deployments\/([^/]+)\/chat\/completions$/.exec(path);
  return m ? decodeURIComponent(m[1]!) : null;
}

/** Azure's key check on the `api-key` header (the body comes from the dialect's errorBody). */
export function azureAuthError(header: string | string[] | undefined, apiKey: string): ApiError | null {
  const given = Buffer.from(typeof header === 'string' ? header : '');
  const wanted = Buffer.from(apiKey);
  if (given.length === wanted.length && timingSafeEqual(given, wanted)) return null;
  return { status: 401, body: { error: { message: 'Access denied', type: 'invalid_request_error', param: null, code: '401' } } };
}
