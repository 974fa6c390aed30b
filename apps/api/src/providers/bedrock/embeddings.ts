// Bedrock's embedding models behind OpenAI's /v1/embeddings, through InvokeModel (each
// model's native body, SigV4-signed like Converse): Amazon Titan Text Embeddings
// (one text a call, so a list becomes several calls; V2 takes 256, 512 or 1024
// dimensions) and Cohere Embed v3 (up to 96 texts a call, embedded as documents). Tokens
// come from Titan's inputTextTokenCount, else from the x-amzn-bedrock-input-token-count header.
import type { AdapterRequest, CallTarget, EmbeddingAdapter, EmbeddingAnswer, EmbeddingInput, ParsedEmbeddings } from '../types.ts';
import { tryJson } from '../vendor-error.ts';
import { credentialsOrThrow, signBedrock, unsignedHeaders } from './api.ts';
import { mapBedrockError } from './errors.ts';
import { modelSegment } from '../model-id.ts';
import { urlOf } from '../url.ts';

type Family = 'titan-v2' | 'titan-v1' | 'cohere';

const TITAN_V2_DIMENSIONS = [256, 512, 1024];
export const COHERE_MAX_TEXTS = 96;

export function familyOf(model: string): Family | null {
  if (/^(?:[a-z]{2}\.)?amazon\.titan-embed-text-v2/.test(model)) return 'titan-v2';
  if (/^amazon\.titan-embed-text-v1/.test(model)) return 'titan-v1';
  if (/^(?:[a-z]{2}\.)?cohere\.embed-/.test(model)) return 'cohere';
  return null;
}

export function invokeUrl(baseUrl: string, model: string): URL {
  return urlOf(`${baseUrl}/model/${modelSegment(model)}/invoke`);
}

/** The native bodies, one per call. */
export function bedrockEmbeddingBodies(req: EmbeddingInput, model: string): Record<string, unknown>[] {
  const texts = req.input as string[];
  const family = familyOf(model);
  if (family === 'cohere') {
    const out: Record<string, unknown>[] = [];
    for (let i = 0; i < texts.length; i += COHERE_MAX_TEXTS) out.push({ texts: texts.slice(i, i + COHERE_MAX_TEXTS), input_type: 'search_document' });
    return out;
  }
  return texts.map((inputText) => (family === 'titan-v2' ? { inputText, ...(req.dimensions !== undefined ? { dimensions: req.dimensions } : {}), normalize: true } : { inputText }));
}

function unsupported(req: EmbeddingInput, target: CallTarget): string | null {
  const family = familyOf(target.model);
  if (!family) return `embeddings with ${target.model} (Bedrock embeds with amazon.titan-embed-text-v2:0 or cohere.embed-*)`;
  if (req.input.some((i) => typeof i !== 'string')) return 'token-id arrays as embedding input (send text)';
  if (req.dimensions !== undefined && (family !== 'titan-v2' || !TITAN_V2_DIMENSIONS.includes(req.dimensions))) {
    return family === 'titan-v2' ? `dimensions ${req.dimensions} (Titan V2 takes 256, 512 or 1024)` : `dimensions on ${target.model}`;
  }
  return null;
}

function header(headers: EmbeddingAnswer['headers'], name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export function parseBedrockEmbeddings(answers: EmbeddingAnswer[], expected: number): ParsedEmbeddings {
  const vectors: number[][] = [];
  let tokens: number | null = 0;
  for (const a of answers) {
    const j = tryJson(a.text) as { embedding?: unknown; embeddings?: unknown; inputTextTokenCount?: unknown } | null;
    if (!j) throw new SyntaxError('not JSON');
    const list: unknown[] = Array.isArray(j.embeddings) ? j.embeddings : j.embedding !== undefined ? [j.embedding] : [];
    for (const v of list) {
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'number')) throw new SyntaxError('malformed embedding');
      vectors.push(v as number[]);
    }
    const counted = typeof j.inputTextTokenCount === 'number' ? j.inputTextTokenCount : Number(header(a.headers, 'x-amzn-bedrock-input-token-count'));
    tokens = tokens !== null && Number.isFinite(counted) ? tokens + counted : null;
  }
  if (vectors.length !== expected) throw new SyntaxError('one vector per input expected');
  return { vectors, promptTokens: tokens };
}

export const bedrockEmbeddingAdapter: EmbeddingAdapter = {
  unsupported,
  buildRequests(req: EmbeddingInput, target: CallTarget): AdapterRequest[] {
    credentialsOrThrow(target.provider, target.apiKey); // a key that cannot be AWS credentials is a 401 before anything is sent
    const url = invokeUrl(target.provider.baseUrl, target.model);
    return bedrockEmbeddingBodies(req, target.model).map((b) => ({ url, headers: unsignedHeaders(false), body: JSON.stringify(b) }));
  },
  sign: signBedrock,
  parseResponses: (answers, req) => parseBedrockEmbeddings(answers, req.input.length),
  mapError: mapBedrockError,
};
