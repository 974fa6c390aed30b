// OpenAI request fields → Converse, as data: one rule per field. A field the client
// set that has no rule, or whose value the rule does not accept, is refused by name
// (the gateway answers 400) — nothing is silently dropped.
//
// Decisions, per field:
// - max_tokens / max_completion_tokens → inferenceConfig.maxTokens (the latter wins).
// - temperature, top_p → inferenceConfig; outside Converse's 0..1 they are refused
//   rather than clamped (OpenAI's 1.5 has no faithful equivalent).
// - stop → inferenceConfig.stopSequences (a string becomes a one-item list).
// - user, safety_identifier, metadata → requestMetadata (Bedrock's invocation-log tags).
// - service_tier default/flex/priority → serviceTier; auto is Bedrock's default; scale is refused.
// - reasoning_effort → additionalModelRequestFields.thinking {type: enabled,
//   budget_tokens} on Anthropic Claude models (the only Converse family whose
//   reasoning switch is documented this way); `none` sends nothing; on other
//   models it is refused. Converse reports no separate reasoning-token count:
//   thinking is inside outputTokens, so completion_tokens include it and
//   reasoning_tokens stay 0.
// - store true, n > 1, logprobs, top_logprobs, seed, non-zero penalties, logit_bias,
//   audio, prediction, web_search_options, verbosity, functions/function_call: refused.
// - prompt_cache_key: accepted as the hint it is (Converse caches at explicit
//   cachePoint blocks, which OpenAI's format cannot place); it changes no answer.
// - messages, tools, tool_choice, parallel_tool_calls, response_format: request.ts and tools.ts.
import type { ChatBody } from '../types.ts';
import type { ConverseRequest } from './wire.ts';

export interface ParamRule {
  param: string;
  /** Dot path in the Converse body the value is written to. */
  to?: string;
  /** Accepted range, inclusive; outside it the field is refused. */
  min?: number;
  max?: number;
  /** The value written, when it is not the client's value as-is. */
  transform?: (value: any, body: ChatBody, model: string) => unknown;
  /** Whether this value can be honoured; a refused value names `refusal`. */
  accepts?: (value: any, body: ChatBody, model: string) => boolean;
  /** What unsupported() names when `accepts` says no. */
  refusal?: string | ((value: any) => string);
  /** Translated elsewhere (messages, tools) or carries no vendor field. */
  handled?: true;
}

/** Anthropic's minimum thinking budget is 1024 tokens; each effort step quadruples it. */
export const THINKING_BUDGET: Record<string, number> = { minimal: 1024, low: 1024, medium: 4096, high: 16384, xhigh: 32768 };
/** Room left for the answer when reasoning is on and the client set no max_tokens. */
export const ANSWER_TOKENS = 4096;

export function isClaude(model: string): boolean {
  return /(^|[./:])anthropic\.claude/.test(model);
}

export function maxTokensOf(body: ChatBody): number | undefined {
  const v = body.max_completion_tokens ?? body.max_tokens;
  return typeof v === 'number' ? v : undefined;
}

const never = () => false;
const isEmptyObject = (v: unknown) => typeof v === 'object' && v !== null && Object.keys(v).length === 0;
const SERVICE_TIERS: Record<string, string | undefined> = { auto: undefined, default: 'default', flex: 'flex', priority: 'priority' };

export const params: ParamRule[] = [
  { param: 'model', handled: true },
  { param: 'messages', handled: true },
  { param: 'stream', handled: true },
  // Converse always reports usage; the gateway passes the usage chunk on when asked.
  { param: 'stream_options', handled: true },
  { param: 'tools', handled: true },
  { param: 'tool_choice', handled: true },
  { param: 'parallel_tool_calls', handled: true },
  { param: 'response_format', handled: true },
  { param: 'prompt_cache_key', handled: true },
  { param: 'max_tokens', to: 'inferenceConfig.maxTokens', min: 1 },
  { param: 'max_completion_tokens', to: 'inferenceConfig.maxTokens', min: 1 },
  { param: 'temperature', to: 'inferenceConfig.temperature', min: 0, max: 1 },
  { param: 'top_p', to: 'inferenceConfig.topP', min: 0, max: 1 },
  { param: 'stop', to: 'inferenceConfig.stopSequences', transform: (v: string | string[]) => (Array.isArray(v) ? v : [v]) },
  { param: 'user', to: 'requestMetadata.user' },
  { param: 'safety_identifier', to: 'requestMetadata.safety_identifier' },
  { param: 'metadata', to: 'requestMetadata', transform: (v: Record<string, string>) => v },
  {
    param: 'service_tier',
    to: 'serviceTier',
    accepts: (v) => v in SERVICE_TIERS,
    refusal: (v) => `service_tier "${String(v)}"`,
    transform: (v: string) => (SERVICE_TIERS[v] ? { type: SERVICE_TIERS[v] } : undefined),
  },
  {
    param: 'reasoning_effort',
    to: 'additionalModelRequestFields.thinking',
    accepts: (v, body, model) => v === 'none' || (isClaude(model) && v in THINKING_BUDGET && (maxTokensOf(body) ?? Infinity) > THINKING_BUDGET[v]!),
    refusal: (v) =>
      v in THINKING_BUDGET
        ? `reasoning_effort "${String(v)}" (only Anthropic Claude models reason through Converse, with max_tokens above the ${THINKING_BUDGET[v]}-token thinking budget)`
        : `reasoning_effort "${String(v)}"`,
    transform: (v: string) => (v === 'none' ? undefined : { type: 'enabled', budget_tokens: THINKING_BUDGET[v] }),
  },
  { param: 'store', accepts: (v) => v === false, refusal: 'store (Bedrock keeps no completions)' },
  { param: 'n', accepts: (v) => v === 1, refusal: 'n > 1 (Converse returns one choice)' },
  { param: 'logprobs', accepts: (v) => v === false, refusal: 'logprobs' },
  { param: 'top_logprobs', accepts: never, refusal: 'top_logprobs' },
  { param: 'seed', accepts: never, refusal: 'seed' },
  { param: 'frequency_penalty', accepts: (v) => v === 0, refusal: 'frequency_penalty' },
  { param: 'presence_penalty', accepts: (v) => v === 0, refusal: 'presence_penalty' },
  { param: 'logit_bias', accepts: isEmptyObject, refusal: 'logit_bias' },
  { param: 'modalities', accepts: (v) => Array.isArray(v) && v.every((m) => m === 'text'), refusal: 'audio output' },
  { param: 'audio', accepts: never, refusal: 'audio output' },
  { param: 'prediction', accepts: never, refusal: 'predicted outputs' },
  { param: 'web_search_options', accepts: never, refusal: 'web search' },
  { param: 'verbosity', accepts: never, refusal: 'verbosity' },
  { param: 'functions', accepts: never, refusal: 'functions (send tools instead)' },
  { param: 'function_call', accepts: never, refusal: 'function_call (send tool_choice instead)' },
];

const byName = new Map(params.map((r) => [r.param, r]));

function refusalOf(rule: ParamRule, value: unknown): string {
  if (typeof rule.refusal === 'function') return rule.refusal(value);
  return rule.refusal ?? `${rule.param} ${JSON.stringify(value)}`;
}

/** The first client-set field this table cannot honour, as a phrase; null when all can be. */
export function refusedParam(body: ChatBody, model: string): string | null {
  for (const [param, value] of Object.entries(body)) {
    if (value === null || value === undefined) continue;
    const rule = byName.get(param);
    if (!rule) return `the ${param} parameter`;
    if (rule.accepts && !rule.accepts(value, body, model)) return refusalOf(rule, value);
    if (typeof value === 'number' && ((rule.min !== undefined && value < rule.min) || (rule.max !== undefined && value > rule.max))) {
      return `${param} ${value} (Bedrock accepts ${rule.min ?? '-∞'} to ${rule.max ?? '∞'})`;
    }
  }
  return null;
}

function setPath(target: Record<string, any>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = target;
  for (const k of keys.slice(0, -1)) node = node[k] ??= {};
  const last = keys.at(-1)!;
  node[last] = value !== null && typeof value === 'object' && !Array.isArray(value) && typeof node[last] === 'object' ? { ...node[last], ...value } : value;
}

/** Writes every mapped field the client set into `out`, in table order (so max_completion_tokens wins over max_tokens). */
export function applyParams(body: ChatBody, model: string, out: ConverseRequest): void {
  for (const rule of params) {
    const value = body[rule.param];
    if (!rule.to || value === null || value === undefined) continue;
    const mapped = rule.transform ? rule.transform(value, body, model) : value;
    if (mapped !== undefined) setPath(out as unknown as Record<string, any>, rule.to, mapped);
  }
  const thinking = out.additionalModelRequestFields?.thinking as { budget_tokens: number } | undefined;
  if (thinking && maxTokensOf(body) === undefined) setPath(out as unknown as Record<string, any>, 'inferenceConfig.maxTokens', thinking.budget_tokens + ANSWER_TOKENS);
}
