import { startAnthropicMock } from '@optimizer/mock-providers';
import type { ProviderConformance, Received } from '../descriptor.ts';

/** The JSON-mode tool the anthropic adapter forces for response_format (src/providers/anthropic/tools.ts). */
const JSON_TOOL = 'json_output';

function blocks(content: unknown): any[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : [];
}

function textOf(content: unknown): string {
  return blocks(content)
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('');
}

/** Reads an Anthropic Messages request in OpenAI's terms. */
export function inspectAnthropic(req: { body: any }): Received {
  const b = req.body;
  const msgs: any[] = b.messages ?? [];
  const userTurns = msgs.filter((m) => m.role === 'user');
  const all = msgs.flatMap((m) => blocks(m.content));
  const tools: any[] = b.tools ?? [];
  const choice = b.tool_choice;
  return {
    model: b.model,
    system: b.system === undefined ? null : typeof b.system === 'string' ? b.system : textOf(b.system),
    userTexts: userTurns.map((m) => textOf(m.content)).filter((t) => t !== ''),
    imageCount: all.filter((x) => x.type === 'image').length,
    toolNames: tools.map((t) => t.name).filter((n) => n !== JSON_TOOL),
    toolResults: all.filter((x) => x.type === 'tool_result').length,
    forcedTool: choice?.type === 'tool' && choice.name !== JSON_TOOL ? choice.name : choice?.type === 'any' ? '*' : null,
    maxTokens: b.max_tokens ?? null,
    stop: b.stop_sequences ?? [],
    jsonSchema: tools.some((t) => t.name === JSON_TOOL),
  };
}

export const conformance: ProviderConformance = {
  provider: 'anthropic',
  model: 'claude-haiku-4-5',
  startMock: (apiKey, opts) => startAnthropicMock({ apiKey, ...opts }),
  env: (url, key) => ({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: key }),
  faultModel: (f) => `anthropic/${f}`,
  // cache_read_input_tokens, cache_creation_input_tokens (split by lifetime in cache_creation), and the thinking share of output_tokens.
  usage: { cacheWrites: true, longCacheWrites: true },
  inspect: inspectAnthropic,
};
