// Gemini's response bodies: GenerateContentResponse and the model list.

export interface ResponseMeta {
  model: string;
  responseId: string;
}

export function responseBody(candidates: unknown[], usageMetadata: unknown, meta: ResponseMeta): Record<string, unknown> {
  return { candidates, usageMetadata, modelVersion: meta.model, responseId: meta.responseId };
}

export const MODEL_IDS = ['gemini-2.5-pro', 'gemini-2.5-flash', 'gemini-2.5-flash-lite'];

export function modelList(extra: readonly string[]): Record<string, unknown> {
  return {
    models: [...MODEL_IDS, ...extra].map((id) => ({
      name: `models/${id}`,
      version: '001',
      displayName: id,
      inputTokenLimit: 1048576,
      outputTokenLimit: 65536,
      supportedGenerationMethods: ['generateContent', 'countTokens', 'createCachedContent', 'batchGenerateContent'],
      thinking: true,
    })),
  };
}
