// The OpenAI-compatible vendors, each as a profile (profile.ts): data, not branches.
// Sources: each vendor's API reference and OpenAI-compatibility page (Mistral's
// client-python request models, console.groq.com/docs/openai, api-docs.deepseek.com,
// docs.x.ai, docs.together.ai, docs.fireworks.ai, openrouter.ai/docs,
// ollama docs/openai.md, docs.vllm.ai, learn.microsoft.com Azure OpenAI reference).
// Where a doc was silent or ambiguous the rule says so ("Unverified: ...").
import { developerAsSystem, mistralMessages, namedMessage } from './messages.ts';
import { modelSegment } from '../model-id.ts';
import type { ParamRule, UsageStyle, VendorProfile } from './profile.ts';

export const AZURE_DEFAULT_API_VERSION = '2024-10-21';

const chatUrl = (baseUrl: string): string => `${baseUrl}/chat/completions`;

const OPENAI_USAGE: UsageStyle = { at: ['usage'], cachedAt: ['prompt_tokens_details.cached_tokens'] };

/** Refuses the field when the client set it to true (false is the default the vendor has). */
const refuseTrue = (name: string) => (v: unknown) => (v === true ? name : null);
/** Refuses the field when the client set it to false (true is the only behaviour the vendor has). */
const refuseFalse = (name: string) => (v: unknown) => (v === false ? name : null);

/**
 * Fields only OpenAI gives meaning to, for vendors that list what they accept: the ones
 * that change no output are dropped (with why), the ones the client relies on are refused.
 */
const openAIOnly: readonly ParamRule[] = [
  { param: 'store', unsupported: refuseTrue('store: true (stored completions are an OpenAI feature)'), drop: 'not storing is the default' },
  { param: 'metadata', drop: 'it tags stored completions, and nothing is stored' },
  { param: 'user', drop: "an end-user id for the vendor's abuse monitoring; it changes no output" },
  { param: 'safety_identifier', drop: "an end-user id for the vendor's abuse monitoring; it changes no output" },
  { param: 'prompt_cache_key', drop: 'a hint for routing to a warm cache; it changes no output' },
  { param: 'prompt_cache_retention', drop: 'how long OpenAI keeps a cached prefix; it changes no output' },
  { param: 'service_tier', unsupported: (v) => (v === 'auto' || v === 'default' ? null : `service_tier ${String(v)}`), drop: 'the default tier' },
  {
    param: 'modalities',
    unsupported: (v) => (Array.isArray(v) && v.every((m) => m === 'text') ? null : 'audio output (modalities)'),
    drop: 'text is the only output',
  },
  { param: 'audio', unsupported: 'audio output' },
  { param: 'functions', unsupported: 'legacy functions (send tools)' },
  { param: 'function_call', unsupported: 'legacy function_call (send tool_choice)' },
];

/** OpenAI's `developer` role, as `system` for vendors that have only that. */
const developerRole: ParamRule = { param: 'messages', transform: developerAsSystem };

/** xAI's reasoning models (grok-4) refuse these; its non-reasoning variants take them. */
const grok4Reasoning = (model: string): boolean => /^grok-4/.test(model) && !/non-reasoning/.test(model);
const notOnGrok4 = (param: string): ParamRule => ({ param, unsupported: (_v, { model }) => (grok4Reasoning(model) ? `${param} on ${model}` : null) });

export const vendors: Readonly<Record<string, VendorProfile>> = {
  // Mistral validates strictly (HTTP 422 "Extra inputs are not permitted" for any field it
  // lacks), so `accepts` is its full request model (client-python ChatCompletionRequest).
  mistral: {
    name: 'mistral',
    url: chatUrl,
    auth: 'bearer',
    accepts: [
      'temperature', 'top_p', 'max_tokens', 'stop', 'response_format', 'tools', 'tool_choice', 'presence_penalty', 'frequency_penalty', 'n',
      'prediction', 'parallel_tool_calls',
      // Mistral's own, for clients that pin Mistral and set them.
      'random_seed', 'safe_prompt', 'prompt_mode',
      // Mistral's prompt cache reads OpenAI's key (docs.mistral.ai, prompt caching); hits are
      // reported as usage.prompt_tokens_details.cached_tokens and billed at a tenth of input.
      'prompt_cache_key',
    ],
    params: [
      ...openAIOnly.filter((r) => r.param !== 'prompt_cache_key'),
      // When both are set, max_completion_tokens (OpenAI's current name) wins.
      { param: 'max_completion_tokens', to: 'max_tokens' },
      { param: 'seed', to: 'random_seed' },
      { param: 'stream_options', drop: 'Mistral reports usage on the last chunk of every stream' },
      { param: 'tool_choice', transform: (v) => (v === 'required' ? 'any' : v) },
      { param: 'messages', unsupported: namedMessage, transform: mistralMessages },
    ],
    // Unverified: input_audio (Voxtral models) and document_url take other part shapes; refused.
    parts: ['image_url'],
    images: () => 'any',
    usage: OPENAI_USAGE,
    // "model_length": the model's context ran out; "error": generation failed mid-way.
    finishReasons: { model_length: 'length' },
    errors: ['object-error', 'message', 'detail', 'openai'],
  },

  // Groq rejects what it lacks with a 400 naming the field, so fields pass through; its
  // compatibility page lists logprobs, logit_bias, top_logprobs, messages[].name and n ≠ 1.
  // Streams put usage in `x_groq.usage` on the last chunk; with stream_options.include_usage
  // (supported since 2025) also a usage-only chunk.
  groq: {
    name: 'groq',
    url: chatUrl,
    auth: 'bearer',
    params: [
      { param: 'n', max: 1 },
      { param: 'logprobs', unsupported: refuseTrue('logprobs'), drop: 'false is the default' },
      { param: 'top_logprobs', unsupported: 'top_logprobs' },
      { param: 'logit_bias', unsupported: 'logit_bias' },
      { param: 'messages', unsupported: namedMessage, transform: developerAsSystem },
    ],
    // Images only on its vision models (llama-4 scout/maverick); Groq refuses them elsewhere.
    parts: ['image_url'],
    images: () => 'any',
    usage: { at: ['usage', 'x_groq.usage'], cachedAt: ['prompt_tokens_details.cached_tokens'] },
    errors: ['openai'],
  },

  // DeepSeek ignores fields it does not know, so `accepts` lists its documented ones.
  // Text only; JSON mode without schemas; cache hits reported as prompt_cache_hit_tokens.
  deepseek: {
    name: 'deepseek',
    url: chatUrl,
    auth: 'bearer',
    accepts: ['temperature', 'top_p', 'max_tokens', 'stop', 'stream_options', 'frequency_penalty', 'presence_penalty', 'response_format', 'tools', 'tool_choice', 'logprobs', 'top_logprobs'],
    params: [
      ...openAIOnly,
      { param: 'max_completion_tokens', to: 'max_tokens' },
      {
        param: 'response_format',
        unsupported: (v) => ((v as { type?: unknown }).type === 'json_schema' ? 'response_format json_schema (DeepSeek has json_object only)' : null),
      },
      // Undocumented by DeepSeek (silently ignored), so more than one choice is refused.
      { param: 'n', max: 1, drop: 'one choice is the default' },
      { param: 'parallel_tool_calls', unsupported: refuseFalse('parallel_tool_calls: false'), drop: 'parallel calls are the default' },
      { param: 'logprobs', unsupported: (v, { model }) => (v === true && /reasoner/.test(model) ? `logprobs on ${model}` : null) },
      developerRole,
    ],
    parts: [],
    images: () => 'none',
    usage: { at: ['usage'], cachedAt: ['prompt_cache_hit_tokens', 'prompt_tokens_details.cached_tokens'] },
    // Generation cut short by DeepSeek's capacity: the answer is incomplete, as with length.
    finishReasons: { insufficient_system_resource: 'length' },
    errors: ['openai'],
  },

  // xAI takes OpenAI's fields; completion_tokens there leave reasoning tokens out
  // (completion_tokens_details.reasoning_tokens is reported beside them).
  xai: {
    name: 'xai',
    url: chatUrl,
    auth: 'bearer',
    params: [
      // docs.x.ai: reasoning models take no presencePenalty, frequencyPenalty, stop or
      // reasoning_effort. Unverified for grok-3-mini, which does take reasoning_effort.
      notOnGrok4('presence_penalty'),
      notOnGrok4('frequency_penalty'),
      notOnGrok4('stop'),
      notOnGrok4('reasoning_effort'),
    ],
    parts: ['image_url'],
    images: () => 'any',
    usage: { ...OPENAI_USAGE, reasoningOutsideCompletion: true },
    // Errors come as {"code": "...", "error": "message"} as well as OpenAI's envelope.
    errors: ['error-string', 'openai'],
  },

  // Together: OpenAI's chat fields plus its own (top_k, repetition_penalty, ...). Its
  // `logprobs` is a count with its own response shape, so OpenAI's boolean is refused.
  // Streams carry usage on the last chunk, beside its choices.
  together: {
    name: 'together',
    url: chatUrl,
    auth: 'bearer',
    params: [
      // Unverified whether max_completion_tokens is accepted; max_tokens is documented.
      { param: 'max_completion_tokens', to: 'max_tokens' },
      { param: 'logprobs', unsupported: refuseTrue('logprobs'), drop: 'false is the default' },
      { param: 'top_logprobs', unsupported: 'top_logprobs' },
      developerRole,
    ],
    parts: ['image_url'],
    images: () => 'any',
    usage: OPENAI_USAGE,
    finishReasons: { eos: 'stop' },
    errors: ['openai'],
  },

  // Fireworks: OpenAI-compatible; usage on the final chunk (the one with finish_reason).
  fireworks: {
    name: 'fireworks',
    url: chatUrl,
    auth: 'bearer',
    // Unverified whether max_completion_tokens is accepted; max_tokens is documented.
    params: [{ param: 'max_completion_tokens', to: 'max_tokens' }, developerRole],
    parts: ['image_url'],
    images: () => 'any',
    usage: OPENAI_USAGE,
    errors: ['openai'],
  },

  // OpenRouter forwards OpenAI's fields to the routed vendor. App attribution headers come
  // from the provider's options when an admin sets them. Errors carry a numeric code; a
  // failure mid-stream arrives as a chunk with a top-level `error`.
  openrouter: {
    name: 'openrouter',
    url: chatUrl,
    auth: 'bearer',
    headers: (o) => ({ ...(o.httpReferer ? { 'HTTP-Referer': o.httpReferer } : {}), ...(o.appTitle ? { 'X-Title': o.appTitle } : {}) }),
    params: [],
    parts: '*',
    images: () => 'any',
    usage: OPENAI_USAGE,
    errors: ['openai'],
  },

  // Ollama's OpenAI layer ignores fields it lacks, so `accepts` lists its documented ones
  // (docs/openai.md). Images as base64 data: URLs only. No key locally; Ollama's cloud
  // takes a bearer key.
  ollama: {
    name: 'ollama',
    url: chatUrl,
    auth: 'bearer-if-key',
    accepts: ['temperature', 'top_p', 'max_tokens', 'stop', 'stream_options', 'frequency_penalty', 'presence_penalty', 'response_format', 'seed', 'tools', 'reasoning_effort'],
    params: [
      ...openAIOnly,
      { param: 'max_completion_tokens', to: 'max_tokens' },
      { param: 'tool_choice', unsupported: (v) => (v === 'auto' ? null : 'tool_choice other than auto'), drop: 'auto is the default' },
      { param: 'n', max: 1, drop: 'one choice is the default' },
      { param: 'parallel_tool_calls', unsupported: refuseFalse('parallel_tool_calls: false'), drop: 'parallel calls are the default' },
      developerRole,
    ],
    parts: ['image_url'],
    images: () => 'data-url-only',
    usage: OPENAI_USAGE,
    errors: ['openai', 'error-string'],
  },

  // vLLM serves OpenAI's API (plus sampling extras); the key is optional (--api-key).
  // Older versions answer errors as {"object": "error", ...}.
  vllm: {
    name: 'vllm',
    url: chatUrl,
    auth: 'bearer-if-key',
    params: [],
    parts: '*',
    images: () => 'any',
    usage: OPENAI_USAGE,
    errors: ['openai', 'object-error'],
  },

  // Azure OpenAI: the deployment in the path names the model, the api-version is a query
  // parameter, the key goes in `api-key`. Streams open with a chunk that carries only
  // prompt_filter_results (no choices), which is dropped. stream_options (asked for to meter
  // streams) exists from api-version 2024-09-01-preview and in the 2024-10-21 GA default;
  // an older configured version would refuse it.
  'azure-openai': {
    name: 'azure-openai',
    url: (baseUrl, model, o) =>
      `${baseUrl}/deployments/${modelSegment(model)}/chat/completions?${new URLSearchParams({ 'api-version': o.apiVersion || AZURE_DEFAULT_API_VERSION }).toString()}`,
    auth: 'api-key',
    modelInUrl: true,
    params: [],
    parts: '*',
    images: () => 'any',
    usage: OPENAI_USAGE,
    errors: ['openai'],
  },
};

export function profileFor(provider: string): VendorProfile | undefined {
  return Object.hasOwn(vendors, provider) ? vendors[provider] : undefined;
}
