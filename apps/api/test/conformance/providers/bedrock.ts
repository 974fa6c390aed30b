import { startBedrockMock } from '@optimizer/mock-providers';
import type { ProviderConformance, Received } from '../descriptor.ts';

/** The JSON-mode tool the bedrock adapter forces for response_format (src/providers/bedrock/wire.ts). */
const JSON_TOOL = 'json_response';

/**
 * The matrix hands every provider one opaque platform key; Bedrock's key is AWS
 * credentials, so the descriptor fixes its own pair and gives both the mock and the
 * gateway (as AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY) the same one.
 */
const ACCESS_KEY_ID = 'AKIAMOCKCONFORMANCE1';
const SECRET_ACCESS_KEY = 'conformance/Secret+Access/Key0000000000';
const REGION = 'us-east-1';

const texts = (content: any[]): string =>
  content
    .filter((b) => typeof b.text === 'string')
    .map((b) => b.text)
    .join('');

/** Reads a Converse request (model id from the path) in OpenAI's terms. */
export function inspectBedrock(req: { path: string; body: any }): Received {
  const b = req.body;
  const msgs: any[] = b.messages ?? [];
  const blocks = msgs.flatMap((m) => m.content ?? []);
  const tools: any[] = (b.toolConfig?.tools ?? []).filter((t: any) => t.toolSpec);
  const choice = b.toolConfig?.toolChoice;
  const forced: string | null = choice?.tool?.name ?? (choice?.any ? '*' : null);
  const system: any[] = b.system ?? [];
  return {
    model: decodeURIComponent(/^\/model\/([^/]+)\//.exec(req.path)?.[1] ?? ''),
    system: system.length ? texts(system) : null,
    userTexts: msgs
      .filter((m) => m.role === 'user')
      .map((m) => texts(m.content ?? []))
      .filter((t) => t !== ''),
    imageCount: blocks.filter((x) => x.image).length,
    toolNames: tools.map((t) => t.toolSpec.name).filter((n) => n !== JSON_TOOL),
    toolResults: blocks.filter((x) => x.toolResult).length,
    forcedTool: forced === JSON_TOOL ? null : forced,
    maxTokens: b.inferenceConfig?.maxTokens ?? null,
    stop: b.inferenceConfig?.stopSequences ?? [],
    jsonSchema: tools.some((t) => t.toolSpec.name === JSON_TOOL) && forced === JSON_TOOL,
  };
}

export const conformance: ProviderConformance = {
  provider: 'bedrock',
  model: 'bedrock/anthropic.claude-3-5-haiku-20241022-v1:0',
  startMock: (_apiKey, opts) => startBedrockMock({ accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET_ACCESS_KEY, region: REGION, ...opts }),
  env: (url) => ({ BEDROCK_BASE_URL: url, AWS_ACCESS_KEY_ID: ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: SECRET_ACCESS_KEY, AWS_REGION: REGION }),
  faultModel: (f) => `bedrock/${f}`,
  // cacheReadInputTokens and cacheWriteInputTokens; reasoning is inside outputTokens, unreported.
  usage: { cacheWrites: true, reasoning: false },
  inspect: inspectBedrock,
};
