import { startOpenAIMock } from '@optimizer/mock-providers';
import type { ProviderConformance, Received } from '../descriptor.ts';

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.filter((p) => p.type === 'text').map((p) => p.text).join('');
  return '';
}

export function inspectOpenAI(req: { body: any }): Received {
  const b = req.body;
  const msgs: any[] = b.messages ?? [];
  const system = msgs.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => textOf(m.content));
  return {
    model: b.model,
    system: system.length ? system.join('\n') : null,
    userTexts: msgs.filter((m) => m.role === 'user').map((m) => textOf(m.content)),
    imageCount: msgs.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((p: any) => p.type === 'image_url').length,
    toolNames: (b.tools ?? []).map((t: any) => t.function.name),
    toolResults: msgs.filter((m) => m.role === 'tool').length,
    forcedTool: typeof b.tool_choice === 'object' ? b.tool_choice.function.name : b.tool_choice === 'required' ? '*' : null,
    maxTokens: b.max_completion_tokens ?? b.max_tokens ?? null,
    stop: b.stop === undefined ? [] : Array.isArray(b.stop) ? b.stop : [b.stop],
    jsonSchema: b.response_format?.type === 'json_schema',
  };
}

export const conformance: ProviderConformance = {
  provider: 'openai',
  model: 'gpt-4o-mini',
  startMock: (apiKey, opts) => startOpenAIMock({ apiKey, ...opts }),
  env: (url, key) => ({ OPENAI_BASE_URL: url, OPENAI_API_KEY: key }),
  faultModel: (f) => f,
  inspect: inspectOpenAI,
};
