// A Converse request body, checked the way Bedrock does: unknown keys refused,
// inferenceConfig ranges, toolConfig shape and names, thinking's budget rules, and
// the messages (validate-messages.ts).
import { isRecord } from '../guards.ts';
import { constraint, extraneous, validation, type AwsError } from './errors.ts';
import { validateMessages, validateSystem } from './validate-messages.ts';

export interface ConverseRequest {
  messages: { role: 'user' | 'assistant'; content: Record<string, any>[] }[];
  system?: Record<string, any>[];
  inferenceConfig?: { maxTokens?: number; temperature?: number; topP?: number; stopSequences?: string[] };
  toolConfig?: { tools: Record<string, any>[]; toolChoice?: Record<string, any> };
  additionalModelRequestFields?: Record<string, any>;
  [key: string]: unknown;
}

const TOP_LEVEL = [
  'messages', 'system', 'inferenceConfig', 'toolConfig', 'guardrailConfig', 'additionalModelRequestFields',
  'additionalModelResponseFieldPaths', 'promptVariables', 'requestMetadata', 'performanceConfig', 'serviceTier', 'outputConfig',
];
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

function onlyKeys(obj: Record<string, unknown>, allowed: string[]): AwsError | null {
  const extra = Object.keys(obj).find((k) => !allowed.includes(k));
  return extra ? extraneous(extra) : null;
}

function validateInference(c: unknown): AwsError | null {
  if (c === undefined) return null;
  if (!isRecord(c)) return constraint(c, 'inferenceConfig', 'be an object');
  const extra = onlyKeys(c, ['maxTokens', 'temperature', 'topP', 'stopSequences']);
  if (extra) return extra;
  if (c.maxTokens !== undefined && (!Number.isInteger(c.maxTokens) || (c.maxTokens as number) < 1)) {
    return constraint(c.maxTokens, 'inferenceConfig.maxTokens', 'have value greater than or equal to 1');
  }
  for (const key of ['temperature', 'topP'] as const) {
    const v = c[key];
    if (v === undefined) continue;
    if (typeof v !== 'number' || v < 0) return constraint(v, `inferenceConfig.${key}`, 'have value greater than or equal to 0');
    if (v > 1) return constraint(v, `inferenceConfig.${key}`, 'have value less than or equal to 1');
  }
  const stops = c.stopSequences;
  if (stops !== undefined) {
    if (!Array.isArray(stops)) return constraint(stops, 'inferenceConfig.stopSequences', 'be a list');
    const bad = stops.find((s) => typeof s !== 'string' || s.length === 0);
    if (bad !== undefined) return constraint(bad, 'inferenceConfig.stopSequences.member', 'have length greater than or equal to 1');
  }
  return null;
}

function validateTools(c: unknown, hasToolBlocks: boolean): AwsError | null {
  if (c === undefined) return hasToolBlocks ? validation('The toolConfig field must be defined when using toolUse and toolResult content blocks.') : null;
  if (!isRecord(c)) return constraint(c, 'toolConfig', 'be an object');
  const extra = onlyKeys(c, ['tools', 'toolChoice']);
  if (extra) return extra;
  if (!Array.isArray(c.tools) || c.tools.length === 0) return constraint(c.tools ?? null, 'toolConfig.tools', 'have length greater than or equal to 1');
  const names: string[] = [];
  for (const [i, t] of c.tools.entries()) {
    if (!isRecord(t)) return constraint(t, `toolConfig.tools.${i}`, 'be an object');
    const tExtra = onlyKeys(t, ['toolSpec', 'cachePoint', 'systemTool']);
    if (tExtra) return tExtra;
    if (!('toolSpec' in t)) continue;
    const spec = t.toolSpec;
    if (!isRecord(spec)) return constraint(spec, `toolConfig.tools.${i}.member.toolSpec`, 'be an object');
    const sExtra = onlyKeys(spec, ['name', 'description', 'inputSchema', 'strict']);
    if (sExtra) return sExtra;
    if (typeof spec.name !== 'string' || !TOOL_NAME.test(spec.name)) return constraint(spec.name, `toolConfig.tools.${i}.member.toolSpec.name`, 'satisfy regular expression pattern: ^[a-zA-Z0-9_-]{1,64}$');
    if (spec.description !== undefined && (typeof spec.description !== 'string' || spec.description === '')) {
      return constraint(spec.description, `toolConfig.tools.${i}.member.toolSpec.description`, 'have length greater than or equal to 1');
    }
    if (!isRecord(spec.inputSchema) || !isRecord(spec.inputSchema.json)) return validation(`The inputSchema of toolConfig.tools.${i}.toolSpec must be {"json": <JSON Schema object>}.`);
    if (names.includes(spec.name)) return validation(`The toolConfig field contains duplicate tool name ${spec.name}.`);
    names.push(spec.name);
  }
  const choice = c.toolChoice;
  if (choice === undefined) return null;
  if (!isRecord(choice) || Object.keys(choice).length !== 1 || !['auto', 'any', 'tool'].includes(Object.keys(choice)[0]!)) {
    return validation('The toolChoice field must set exactly one of auto, any or tool.');
  }
  if (isRecord(choice.tool) && !names.includes(String(choice.tool.name))) {
    return validation(`The tool ${String(choice.tool.name)} in toolChoice is not defined in toolConfig.tools.`);
  }
  return null;
}

function validateThinking(body: Record<string, any>): AwsError | null {
  const extra = body.additionalModelRequestFields;
  if (extra === undefined) return null;
  if (!isRecord(extra)) return constraint(extra, 'additionalModelRequestFields', 'be a JSON object');
  const thinking = extra.thinking;
  if (thinking === undefined || (isRecord(thinking) && thinking.type === 'disabled')) return null;
  if (!isRecord(thinking) || thinking.type !== 'enabled' || typeof thinking.budget_tokens !== 'number') {
    return validation('thinking: expected {"type": "enabled", "budget_tokens": <integer>} or {"type": "disabled"}.');
  }
  if (thinking.budget_tokens < 1024) return validation('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
  const max = body.inferenceConfig?.maxTokens;
  if (typeof max === 'number' && max <= thinking.budget_tokens) return validation('`max_tokens` must be greater than `thinking.budget_tokens`.');
  const choice = body.toolConfig?.toolChoice;
  if (isRecord(choice) && ('any' in choice || 'tool' in choice)) return validation('Thinking may not be enabled when tool_choice forces tool use.');
  return null;
}

function validateMetadata(body: Record<string, any>): AwsError | null {
  const meta = body.requestMetadata;
  if (meta !== undefined && (!isRecord(meta) || Object.values(meta).some((v) => typeof v !== 'string'))) {
    return constraint(meta, 'requestMetadata', 'be a map of string to string');
  }
  const tier = body.serviceTier;
  if (tier !== undefined && (!isRecord(tier) || !['priority', 'default', 'flex'].includes(String(tier.type)))) {
    return constraint(isRecord(tier) ? tier.type : tier, 'serviceTier.type', 'satisfy enum value set: [priority, default, flex]');
  }
  return null;
}

export function validateConverse(body: unknown): AwsError | null {
  if (!isRecord(body)) return validation('The request body must be a JSON object.');
  const extra = onlyKeys(body, TOP_LEVEL);
  if (extra) return extra;
  const messages = validateMessages(body.messages);
  return (
    messages.error ??
    validateSystem(body.system) ??
    validateInference(body.inferenceConfig) ??
    validateTools(body.toolConfig, messages.hasToolBlocks) ??
    validateThinking(body) ??
    validateMetadata(body)
  );
}
