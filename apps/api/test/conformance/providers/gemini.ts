import { startGeminiMock } from '@optimizer/mock-providers';
import type { ProviderConformance, Received } from '../descriptor.ts';

function textOf(parts: unknown): string {
  return (Array.isArray(parts) ? parts : [])
    .filter((p) => typeof p.text === 'string' && p.thought !== true)
    .map((p) => p.text)
    .join('');
}

/** Reads a Gemini generateContent request (model in the path) in OpenAI's terms. */
export function inspectGemini(req: { path: string; body: any }): Received {
  const b = req.body;
  const contents: any[] = b.contents ?? [];
  const parts = contents.flatMap((c) => c.parts ?? []);
  const fcc = b.toolConfig?.functionCallingConfig;
  const allowed: string[] = fcc?.allowedFunctionNames ?? [];
  const system = b.systemInstruction ? (b.systemInstruction.parts ?? []).map((p: any) => p.text).join('\n') : null;
  return {
    model: decodeURIComponent(/\/models\/([^/:]+):/.exec(req.path)?.[1] ?? ''),
    system,
    userTexts: contents
      .filter((c) => (c.role ?? 'user') === 'user')
      .map((c) => textOf(c.parts))
      .filter((t) => t !== ''),
    imageCount: parts.filter((p) => String((p.inlineData ?? p.fileData)?.mimeType ?? '').startsWith('image/')).length,
    toolNames: (b.tools ?? []).flatMap((t: any) => t.functionDeclarations ?? []).map((f: any) => f.name),
    toolResults: parts.filter((p) => p.functionResponse).length,
    forcedTool: fcc?.mode === 'ANY' ? (allowed.length === 1 ? allowed[0]! : '*') : null,
    maxTokens: b.generationConfig?.maxOutputTokens ?? null,
    stop: b.generationConfig?.stopSequences ?? [],
    jsonSchema: b.generationConfig?.responseSchema !== undefined,
  };
}

export const conformance: ProviderConformance = {
  provider: 'gemini',
  model: 'gemini-2.5-flash',
  startMock: (apiKey, opts) => startGeminiMock({ apiKey, ...opts }),
  env: (url, key) => ({ GEMINI_BASE_URL: url, GEMINI_API_KEY: key }),
  faultModel: (f) => `gemini/${f}`,
  inspect: inspectGemini,
};
