// OpenAI chat-completions parameters → Gemini's generateContent body, as data: one rule
// per OpenAI field. A field with no rule, or a value a rule refuses, is named by
// `paramProblem` and the gateway answers 400; nothing the client set is dropped unseen.
import type { ChatBody } from '../types.ts';
import { isRecord } from './guards.ts';
import { toGeminiSchema } from './schema.ts';

export interface ParamRule {
  /** The OpenAI field. */
  param: string;
  /** Where Gemini takes it: a dotted path into the request body (objects merge). */
  to?: string;
  /** Accepted range (inclusive); a value outside it is refused, not clamped. */
  min?: number;
  max?: number;
  /** Gemini's value for the client's; undefined leaves nothing to set. */
  transform?: (value: unknown) => unknown;
  /** Names what Gemini cannot do with this value, or null. */
  refuse?: (value: unknown) => string | null;
  /** Why a rule with neither `to` nor `refuse` is safe to accept. */
  note?: string;
}

/** reasoning_effort → thinkingConfig.thinkingBudget (tokens). 512 is the smallest budget every 2.5 model accepts. */
export const THINKING_BUDGET: Readonly<Record<string, number>> = { none: 0, minimal: 512, low: 1024, medium: 8192, high: 24576 };

const TOOL_CHOICE_MODE: Readonly<Record<string, string>> = { auto: 'AUTO', none: 'NONE', required: 'ANY' };

const RESPONSE_FORMATS = ['text', 'json_object', 'json_schema'];

export const PARAMS: readonly ParamRule[] = [
  { param: 'model', note: 'names the model in the URL (api.ts)' },
  { param: 'messages', note: 'becomes contents and systemInstruction (request.ts)' },
  { param: 'stream', note: 'picks :streamGenerateContent (api.ts)' },
  { param: 'stream_options', note: 'Gemini reports usage on every stream; the gateway forwards it when include_usage is set' },
  { param: 'tools', note: 'becomes functionDeclarations (tools.ts)' },
  { param: 'tool_choice', to: 'toolConfig.functionCallingConfig', transform: toolChoice, refuse: toolChoiceProblem },
  { param: 'temperature', to: 'generationConfig.temperature', min: 0, max: 2 },
  { param: 'top_p', to: 'generationConfig.topP', min: 0, max: 1 },
  // max_completion_tokens comes after max_tokens so that it wins when both are set.
  { param: 'max_tokens', to: 'generationConfig.maxOutputTokens', min: 1 },
  { param: 'max_completion_tokens', to: 'generationConfig.maxOutputTokens', min: 1 },
  { param: 'stop', to: 'generationConfig.stopSequences', transform: (v) => (typeof v === 'string' ? [v] : v) },
  { param: 'n', to: 'generationConfig.candidateCount', min: 1, max: 8 },
  { param: 'seed', to: 'generationConfig.seed' },
  { param: 'presence_penalty', to: 'generationConfig.presencePenalty', min: -2, max: 2 },
  { param: 'frequency_penalty', to: 'generationConfig.frequencyPenalty', min: -2, max: 2 },
  { param: 'response_format', to: 'generationConfig', transform: responseFormat, refuse: responseFormatProblem },
  {
    param: 'reasoning_effort',
    to: 'generationConfig.thinkingConfig',
    transform: (v) => ({ thinkingBudget: THINKING_BUDGET[String(v)] }),
    refuse: (v) => (typeof v === 'string' && v in THINKING_BUDGET ? null : `reasoning_effort "${String(v)}"`),
  },
  { param: 'parallel_tool_calls', refuse: (v) => (v === false ? 'parallel_tool_calls: false (Gemini may call several functions in one turn)' : null) },
  { param: 'logprobs', refuse: (v) => (v === true ? 'logprobs' : null) },
  { param: 'top_logprobs', refuse: () => 'top_logprobs' },
  { param: 'logit_bias', refuse: (v) => (isRecord(v) && Object.keys(v).length === 0 ? null : 'logit_bias') },
  { param: 'audio', refuse: () => 'audio output' },
  { param: 'modalities', refuse: (v) => (Array.isArray(v) && v.every((m) => m === 'text') ? null : 'output modalities other than text') },
  { param: 'prediction', refuse: () => 'predicted outputs (prediction)' },
  { param: 'web_search_options', refuse: () => 'web_search_options' },
  { param: 'verbosity', refuse: () => 'verbosity' },
  { param: 'functions', refuse: () => 'the legacy functions parameter (send tools instead)' },
  { param: 'function_call', refuse: () => 'the legacy function_call parameter (send tool_choice instead)' },
  { param: 'store', refuse: (v) => (v === true ? 'store: true (stored completions)' : null) },
  { param: 'service_tier', refuse: (v) => (v === 'auto' || v === 'default' ? null : `service_tier "${String(v)}"`) },
  { param: 'user', note: "an end-user id for OpenAI's abuse monitoring; no effect on the answer" },
  { param: 'safety_identifier', note: "an end-user id for OpenAI's abuse monitoring; no effect on the answer" },
  { param: 'metadata', note: 'tags for stored completions; no effect on the answer' },
  { param: 'prompt_cache_key', note: 'a cache-routing hint; Gemini caches repeated prefixes implicitly' },
  { param: 'prompt_cache_retention', note: 'a cache-lifetime hint; Gemini caches repeated prefixes implicitly' },
];

const RULES = new Map(PARAMS.map((r) => [r.param, r]));

/** The first parameter Gemini cannot serve as sent, or null. Null values count as unset. */
export function paramProblem(body: ChatBody): string | null {
  for (const [param, value] of Object.entries(body)) {
    const rule = RULES.get(param);
    if (!rule) return `the "${param}" parameter`;
    if (value === null || value === undefined) continue;
    if (rule.min !== undefined || rule.max !== undefined) {
      const range = `${rule.min ?? '-∞'} to ${rule.max ?? '∞'}`;
      if (typeof value !== 'number' || !Number.isFinite(value)) return `${param} that is not a number`;
      if ((rule.min !== undefined && value < rule.min) || (rule.max !== undefined && value > rule.max)) return `${param} ${value} (Gemini accepts ${range})`;
    }
    const refused = rule.refuse?.(value);
    if (refused) return refused;
  }
  return null;
}

/** The parts of Gemini's body that parameters set: generationConfig and toolConfig. */
export function applyParams(body: ChatBody): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const rule of PARAMS) {
    const value = body[rule.param];
    if (!rule.to || value === null || value === undefined) continue;
    const mapped = rule.transform ? rule.transform(value) : value;
    if (mapped !== undefined) assign(out, rule.to, mapped);
  }
  return out;
}

function assign(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  const last = keys.pop()!;
  let node = target;
  for (const key of keys) {
    if (!isRecord(node[key])) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  const existing = node[last];
  node[last] = isRecord(existing) && isRecord(value) ? { ...existing, ...value } : value;
}

function toolChoice(v: unknown): unknown {
  if (typeof v === 'string') return { mode: TOOL_CHOICE_MODE[v] };
  if (!isRecord(v)) return undefined;
  if (v.type === 'function' && isRecord(v.function)) return { mode: 'ANY', allowedFunctionNames: [String(v.function.name)] };
  if (v.type === 'allowed_tools' && isRecord(v.allowed_tools) && Array.isArray(v.allowed_tools.tools)) {
    const names = v.allowed_tools.tools.map((t) => (isRecord(t) && isRecord(t.function) ? String(t.function.name) : ''));
    return { mode: 'ANY', allowedFunctionNames: names };
  }
  return undefined;
}

function toolChoiceProblem(v: unknown): string | null {
  if (typeof v === 'string') return v in TOOL_CHOICE_MODE ? null : `tool_choice "${v}"`;
  if (!isRecord(v)) return 'tool_choice that is neither a string nor an object';
  if (v.type === 'function') return isRecord(v.function) && typeof v.function.name === 'string' ? null : 'tool_choice without a function name';
  if (v.type === 'allowed_tools') {
    const a = v.allowed_tools;
    if (!isRecord(a) || !Array.isArray(a.tools)) return 'tool_choice allowed_tools without a tools list';
    if (a.mode !== 'required') return 'tool_choice allowed_tools in "auto" mode (Gemini limits functions only when a call is required)';
    return a.tools.every((t) => isRecord(t) && t.type === 'function' && isRecord(t.function) && typeof t.function.name === 'string')
      ? null
      : 'tool_choice allowed_tools naming tools other than functions';
  }
  return `tool_choice of type "${String(v.type)}"`;
}

function responseFormat(v: unknown): unknown {
  if (!isRecord(v)) return undefined;
  if (v.type === 'json_object') return { responseMimeType: 'application/json' };
  if (v.type !== 'json_schema') return undefined;
  const schema = isRecord(v.json_schema) ? v.json_schema.schema : undefined;
  return { responseMimeType: 'application/json', ...(isRecord(schema) ? { responseSchema: toGeminiSchema(schema, { ordered: true }) } : {}) };
}

function responseFormatProblem(v: unknown): string | null {
  if (!isRecord(v) || !RESPONSE_FORMATS.includes(String(v.type))) return `response_format "${isRecord(v) ? String(v.type) : String(v)}"`;
  return null;
}
