// Embeddings on the OpenAI-compatible vendors, as data: where each vendor's endpoint is,
// whether it reads token-id inputs, and what it calls OpenAI's `dimensions`. A vendor
// missing here (Groq, DeepSeek, xAI) serves no embeddings through the gateway.
// Sources: docs.mistral.ai (POST /v1/embeddings: input, output_dimension, output_dtype,
// encoding_format; a strict request model), docs.together.ai and docs.fireworks.ai
// embeddings references, ollama docs/openai.md, docs.vllm.ai (OpenAI's embeddings API,
// token inputs included), learn.microsoft.com (Azure deployments/{d}/embeddings),
// openrouter.ai/docs (embeddings, OpenAI's shape). Unverified where marked.
import type { CallTarget, EmbeddingAdapter, EmbeddingInput } from '../types.ts';
import { embeddingRequest, openAIEmbeddingBody, parseOpenAIEmbeddings, type EmbeddingFields } from '../openai/embeddings.ts';
import { authHeaders } from './adapter.ts';
import { mapCompatError } from './errors.ts';
import { profileFor, AZURE_DEFAULT_API_VERSION } from './vendors.ts';
import { modelSegment } from '../model-id.ts';
import { urlOf } from '../url.ts';

export interface EmbeddingProfile {
  url(baseUrl: string, model: string, options: Record<string, string>): string;
  fields: EmbeddingFields;
  /** Reads token-id arrays as input (OpenAI's own servers and vLLM). */
  tokens: boolean;
}

const embeddingsUrl = (baseUrl: string): string => `${baseUrl}/embeddings`;
const plain = (dimensions: string | null, user: boolean, tokens: boolean): EmbeddingProfile => ({ url: embeddingsUrl, fields: { model: true, dimensions, user }, tokens });

export const embeddingVendors: Readonly<Record<string, EmbeddingProfile>> = {
  // Mistral refuses any field it lacks (422), so `user` is dropped; output_dimension is
  // codestral-embed's (mistral-embed refuses it itself).
  mistral: plain('output_dimension', false, false),
  // Together documents model and input only: no output size.
  together: plain(null, false, false),
  fireworks: plain('dimensions', false, false),
  // Unverified: dimensions on Ollama's OpenAI layer (newer versions); older ones ignore it.
  ollama: plain('dimensions', false, false),
  vllm: plain('dimensions', true, true),
  // Unverified: whether OpenRouter reads token-id input; texts only.
  openrouter: plain('dimensions', true, false),
  'azure-openai': {
    url: (baseUrl, model, o) =>
      `${baseUrl}/deployments/${modelSegment(model)}/embeddings?${new URLSearchParams({ 'api-version': o.apiVersion || AZURE_DEFAULT_API_VERSION }).toString()}`,
    fields: { model: false, dimensions: 'dimensions', user: true },
    tokens: true,
  },
};

export function embeddingProfileFor(provider: string): EmbeddingProfile | undefined {
  return Object.hasOwn(embeddingVendors, provider) ? embeddingVendors[provider] : undefined;
}

function profilesOf(target: CallTarget) {
  const chat = profileFor(target.provider.name);
  const embedding = embeddingProfileFor(target.provider.name);
  if (!chat || !embedding) throw new Error(`No embeddings profile for provider ${target.provider.name}.`);
  return { chat, embedding };
}

export const compatEmbeddingAdapter: EmbeddingAdapter = {
  unsupported(req: EmbeddingInput, target: CallTarget) {
    const { embedding } = profilesOf(target);
    if (!embedding.tokens && req.input.some((i) => typeof i !== 'string')) return 'token-id arrays as embedding input (send text)';
    if (req.dimensions !== undefined && !embedding.fields.dimensions) return 'dimensions (a shorter embedding size)';
    return null;
  },
  buildRequests(req: EmbeddingInput, target: CallTarget) {
    const { chat, embedding } = profilesOf(target);
    const options = target.provider.options ?? {};
    const url = urlOf(embedding.url(target.provider.baseUrl, target.model, options));
    return [embeddingRequest(url, { ...authHeaders(chat, target.apiKey), ...chat.headers?.(options) }, openAIEmbeddingBody(req, target.model, embedding.fields))];
  },
  parseResponses: (answers, req) => parseOpenAIEmbeddings(answers[0]!, req.input.length),
  mapError: (status, headers, text, target) => mapCompatError(profilesOf(target).chat, target.provider.name, status, headers, text),
};
