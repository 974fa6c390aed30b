// OpenAI chat-completions body → Anthropic Messages body, as a pure function. Simple
// fields follow the table in params.ts; messages, tools and JSON mode have their own
// translators; max_tokens and thinking are settled here because they depend on each
// other. Whatever Anthropic cannot do throws Unsupported, which unsupported() reports.
import type { ChatBody } from '../types.ts';
import { translateMessages } from './messages.ts';
import { familyOf, PARAM_RULES, THINKING_BUDGETS, type ModelFamily, type ParamRule } from './params.ts';
import { toolConfig } from './tools.ts';
import { refuse, Unsupported } from './unsupported.ts';
import type { AnthropicRequest } from './wire.ts';

type Json = Record<string, unknown>;

function clamp(rule: ParamRule, value: unknown): unknown {
  if (typeof value !== 'number') return value;
  return Math.min(rule.max ?? Infinity, Math.max(rule.min ?? -Infinity, value));
}

/** The table-driven fields: refusals, and the Anthropic fields they map to directly. */
function mappedParams(body: Json): Partial<AnthropicRequest> {
  const out: Json = {};
  for (const [param, value] of Object.entries(body)) {
    if (value === null || value === undefined) continue;
    const rule = PARAM_RULES.get(param);
    if (!rule) refuse(`${param} (a field Anthropic has no counterpart for)`);
    const refused = rule.refuse?.(value) ?? null;
    if (refused) refuse(refused);
    if (rule.to) out[rule.to] = clamp(rule, rule.transform ? rule.transform(value) : value);
  }
  return out as Partial<AnthropicRequest>;
}

function thinkingBudget(effort: unknown, family: ModelFamily, model: string): number | null {
  if (effort === undefined || effort === null) return null;
  if (typeof effort !== 'string' || !(effort in THINKING_BUDGETS)) return refuse(`reasoning_effort ${JSON.stringify(effort)}`);
  const budget = THINKING_BUDGETS[effort]!;
  if (budget !== null && !family.thinking) refuse(`reasoning_effort on ${model} (it has no extended thinking)`);
  return budget;
}

/**
 * max_tokens: the client's max_completion_tokens or max_tokens, else the model's largest
 * output. OpenAI's limit covers reasoning and answer together, as Anthropic's does; but
 * Anthropic needs max_tokens above the thinking budget, so a smaller limit is raised by
 * the budget (the answer keeps the room the client gave it).
 */
function maxTokens(body: Json, family: ModelFamily, budget: number | null): number {
  const asked = body.max_completion_tokens ?? body.max_tokens;
  if (asked !== undefined && asked !== null && typeof asked !== 'number') refuse('a max_tokens that is not a number');
  const limit = asked ?? family.maxOutputTokens;
  return budget !== null && limit <= budget ? budget + limit : limit;
}

export function toAnthropicRequest(body: ChatBody, model: string, stream: boolean): AnthropicRequest {
  const family = familyOf(model);
  const simple = mappedParams(body);
  const { system, messages } = translateMessages(body.messages);
  const tools = toolConfig(body);
  const budget = thinkingBudget(body.reasoning_effort, family, model);

  if (family.oneSampler && simple.temperature !== undefined && simple.top_p !== undefined) refuse(`temperature together with top_p on ${model} (it takes one or the other)`);
  if (budget !== null) {
    if (tools.forcesTool) refuse('reasoning_effort while forcing a tool (tool_choice "required" or a function, or response_format): Anthropic cannot force tool use while thinking');
    if (simple.temperature !== undefined && simple.temperature !== 1) refuse('temperature other than 1 with reasoning_effort (Anthropic samples thinking at temperature 1)');
    if (simple.top_p !== undefined && simple.top_p < 0.95) refuse('top_p below 0.95 with reasoning_effort');
  }

  return {
    model,
    max_tokens: maxTokens(body, family, budget),
    ...(system !== undefined ? { system } : {}),
    messages,
    ...simple,
    ...(tools.tools ? { tools: tools.tools } : {}),
    ...(tools.tool_choice ? { tool_choice: tools.tool_choice } : {}),
    ...(budget !== null ? { thinking: { type: 'enabled' as const, budget_tokens: budget } } : {}),
    ...(stream ? { stream: true } : {}),
  };
}

/** The first feature of the request Anthropic cannot do, or null. */
export function unsupportedFeature(body: ChatBody, model: string): string | null {
  try {
    toAnthropicRequest(body, model, false);
    return null;
  } catch (err) {
    if (err instanceof Unsupported) return err.message;
    throw err;
  }
}
