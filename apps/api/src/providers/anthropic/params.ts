// How each OpenAI chat-completions field reaches Anthropic's Messages API, as data:
// one rule per field. A field with no rule is refused (never silently dropped); a rule
// either maps the value (`to`, `min`/`max`, `transform`), refuses what Anthropic
// cannot do (`refuse`), hands the field to the translator that builds a larger
// structure (`via`), or records why the field is accepted but not sent (`ignored`).
// A null value means "not set", as OpenAI's own API treats it.
import type { AnthropicRequest } from './wire.ts';

export interface ParamRule {
  /** The OpenAI field. */
  param: string;
  /** The Anthropic field it becomes. */
  to?: keyof AnthropicRequest;
  /** Range the value is clamped into (Anthropic's range, where it is narrower than OpenAI's). */
  min?: number;
  max?: number;
  transform?: (value: unknown) => unknown;
  /** Names what Anthropic cannot do with this value, or null when it can. */
  refuse?: (value: unknown) => string | null;
  /** Translated together with other fields by the named part of the adapter. */
  via?: string;
  /** Accepted and not sent, because it changes nothing in the answer; the reason. */
  ignored?: string;
}

const always = (phrase: string) => (): string => phrase;
const unless = (ok: (v: unknown) => boolean, phrase: string) => (v: unknown): string | null => (ok(v) ? null : phrase);
const isEmptyObject = (v: unknown) => typeof v === 'object' && v !== null && Object.keys(v).length === 0;
const SERVICE_TIERS: Record<string, 'auto' | 'standard_only'> = { auto: 'auto', default: 'standard_only' };

export const PARAMS: ParamRule[] = [
  { param: 'model', via: 'the routed model (CallTarget.model)' },
  { param: 'messages', via: 'messages.ts' },
  { param: 'stream', via: 'buildRequest(stream)' },
  { param: 'stream_options', ignored: 'Anthropic always reports usage in a stream; the gateway passes the usage chunk on when include_usage asks for it' },
  { param: 'max_completion_tokens', via: 'request.ts (max_tokens, required by Anthropic)' },
  { param: 'max_tokens', via: 'request.ts (max_tokens, required by Anthropic)' },
  { param: 'reasoning_effort', via: 'request.ts (thinking budget)' },
  { param: 'tools', via: 'tools.ts' },
  { param: 'tool_choice', via: 'tools.ts' },
  { param: 'parallel_tool_calls', via: 'tools.ts (tool_choice.disable_parallel_tool_use)' },
  { param: 'response_format', via: 'tools.ts (a forced json_output tool)' },
  // OpenAI samples temperature in 0..2, Anthropic in 0..1: values above 1 are clamped to 1.
  { param: 'temperature', to: 'temperature', min: 0, max: 1 },
  { param: 'top_p', to: 'top_p', min: 0, max: 1 },
  { param: 'stop', to: 'stop_sequences', transform: (v) => (typeof v === 'string' ? [v] : v) },
  { param: 'user', to: 'metadata', transform: (v) => ({ user_id: String(v) }) },
  { param: 'safety_identifier', to: 'metadata', transform: (v) => ({ user_id: String(v) }) },
  {
    param: 'service_tier',
    to: 'service_tier',
    transform: (v) => SERVICE_TIERS[String(v)],
    refuse: unless((v) => String(v) in SERVICE_TIERS, 'a service_tier other than "auto" or "default"'),
  },
  { param: 'prompt_cache_key', ignored: 'a cache-routing hint: Anthropic caches by cache_control breakpoints, and the answer does not depend on it' },
  { param: 'n', refuse: unless((v) => v === 1, 'n > 1 (several choices in one call)') },
  { param: 'logprobs', refuse: unless((v) => v === false, 'logprobs') },
  { param: 'top_logprobs', refuse: always('top_logprobs') },
  { param: 'seed', refuse: always('seed (Anthropic has no sampling seed)') },
  { param: 'frequency_penalty', refuse: unless((v) => v === 0, 'frequency_penalty') },
  { param: 'presence_penalty', refuse: unless((v) => v === 0, 'presence_penalty') },
  { param: 'logit_bias', refuse: unless(isEmptyObject, 'logit_bias') },
  { param: 'modalities', refuse: unless((v) => Array.isArray(v) && v.every((m) => m === 'text'), 'output modalities other than text') },
  { param: 'audio', refuse: always('audio output') },
  { param: 'prediction', refuse: always('predicted outputs (prediction)') },
  { param: 'web_search_options', refuse: always('web_search_options') },
  { param: 'verbosity', refuse: always('verbosity') },
  { param: 'store', refuse: unless((v) => v === false, 'store (stored completions)') },
  { param: 'metadata', refuse: always('metadata (OpenAI stored-completion tags)') },
  { param: 'functions', refuse: always('functions (the legacy form of tools; send tools)') },
  { param: 'function_call', refuse: always('function_call (the legacy form of tool_choice; send tool_choice)') },
];

export const PARAM_RULES: ReadonlyMap<string, ParamRule> = new Map(PARAMS.map((r) => [r.param, r]));

/**
 * reasoning_effort → extended thinking's budget_tokens. Anthropic's minimum budget is
 * 1024, so "minimal" gets it too; "none" turns thinking off.
 */
export const THINKING_BUDGETS: Record<string, number | null> = { none: null, minimal: 1024, low: 1024, medium: 4096, high: 16384 };

/** What the adapter must know of a Claude model family (first matching pattern wins). */
export interface ModelFamily {
  pattern: RegExp;
  /**
   * Anthropic requires max_tokens on every call; when the client sets neither
   * max_completion_tokens nor max_tokens, the model's largest output is sent, which is
   * what an OpenAI call without a limit means (and what the catalog's max_output_tokens says).
   */
  maxOutputTokens: number;
  /** Supports extended thinking (reasoning_effort). */
  thinking: boolean;
  /** Refuses temperature and top_p together ("use only one"). */
  oneSampler: boolean;
}

export const MODEL_FAMILIES: ModelFamily[] = [
  { pattern: /^claude-opus-[5-9]/, maxOutputTokens: 128_000, thinking: true, oneSampler: true },
  { pattern: /^claude-(sonnet|haiku)-[5-9]/, maxOutputTokens: 64_000, thinking: true, oneSampler: true },
  { pattern: /^claude-opus-4-[6-9]/, maxOutputTokens: 128_000, thinking: true, oneSampler: true },
  { pattern: /^claude-(opus|sonnet|haiku)-4-[5-9]/, maxOutputTokens: 64_000, thinking: true, oneSampler: true },
  { pattern: /^claude-opus-4-1/, maxOutputTokens: 32_000, thinking: true, oneSampler: true },
  { pattern: /^claude-opus-4/, maxOutputTokens: 32_000, thinking: true, oneSampler: false },
  { pattern: /^claude-sonnet-4/, maxOutputTokens: 64_000, thinking: true, oneSampler: false },
  { pattern: /^claude-3-7-sonnet/, maxOutputTokens: 64_000, thinking: true, oneSampler: false },
  { pattern: /^claude-3-5-/, maxOutputTokens: 8_192, thinking: false, oneSampler: false },
  { pattern: /^claude-3-/, maxOutputTokens: 4_096, thinking: false, oneSampler: false },
];

/** A model this table does not know: a conservative output limit, and no refusals it cannot justify. */
export const UNKNOWN_FAMILY: ModelFamily = { pattern: /.*/, maxOutputTokens: 8_192, thinking: true, oneSampler: false };

export function familyOf(model: string): ModelFamily {
  return MODEL_FAMILIES.find((f) => f.pattern.test(model)) ?? UNKNOWN_FAMILY;
}
