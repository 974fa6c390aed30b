// Bedrock InvokeModel for embedding models, each in its own native body: Amazon Titan Text
// Embeddings V2 ({inputText, dimensions, normalize, embeddingTypes} → {embedding,
// inputTextTokenCount, embeddingsByType}) and Cohere Embed v3 ({texts, input_type,
// truncate, embedding_types} → {embeddings, id, response_type, texts}). Both report the
// input tokens in the x-amzn-bedrock-input-token-count header; Titan also in the body.
import { randomUUID } from 'node:crypto';
import { isRecord } from '../guards.ts';
import { estimateTokens } from '../openai/text.ts';
import type { ScriptedReply } from '../types.ts';
import { mockVector } from '../vectors.ts';
import { awsError, constraint, extraneous, validation, type AwsError } from './errors.ts';

const TITAN = new Set(['amazon.titan-embed-text-v2:0']);
const COHERE = new Set(['cohere.embed-english-v3', 'cohere.embed-multilingual-v3']);
const TITAN_FIELDS = new Set(['inputText', 'dimensions', 'normalize', 'embeddingTypes']);
const COHERE_FIELDS = new Set(['texts', 'input_type', 'truncate', 'embedding_types', 'images']);
const INPUT_TYPES = new Set(['search_document', 'search_query', 'classification', 'clustering']);
const MAX_COHERE_TEXTS = 96;

export interface InvokeAnswer {
  body: Record<string, unknown>;
  inputTokens: number;
}

export function isEmbeddingModel(model: string): boolean {
  return TITAN.has(model) || COHERE.has(model);
}

export function invalidModel(): AwsError {
  return awsError(400, 'ValidationException', 'The provided model identifier is invalid.');
}

function titan(body: Record<string, unknown>, script: Partial<ScriptedReply> | undefined): InvokeAnswer | AwsError {
  for (const k of Object.keys(body)) if (!TITAN_FIELDS.has(k)) return extraneous(k);
  const text = body.inputText;
  if (typeof text !== 'string') return validation('Malformed input request: #: required key [inputText] not found, please reformat your input and try again.');
  if (text.length === 0) return validation('Malformed input request: #/inputText: expected minLength: 1, actual: 0, please reformat your input and try again.');
  const dims = body.dimensions ?? 1024;
  if (dims !== 256 && dims !== 512 && dims !== 1024) return validation(`Malformed input request: #/dimensions: ${JSON.stringify(dims)} is not a valid enum value, please reformat your input and try again.`);
  const vector = mockVector(text, dims);
  const inputTokens = script?.usage?.prompt_tokens ?? estimateTokens(text);
  return { body: { embedding: vector, inputTextTokenCount: inputTokens, embeddingsByType: { float: vector } }, inputTokens };
}

function cohere(body: Record<string, unknown>, script: Partial<ScriptedReply> | undefined): InvokeAnswer | AwsError {
  for (const k of Object.keys(body)) if (!COHERE_FIELDS.has(k)) return extraneous(k);
  const texts = body.texts;
  if (!Array.isArray(texts) || !texts.every((t) => typeof t === 'string')) return validation('Malformed input request: #: required key [texts] not found, please reformat your input and try again.');
  if (texts.length > MAX_COHERE_TEXTS) return constraint(texts.length, 'texts', `have length less than or equal to ${MAX_COHERE_TEXTS}`);
  if (typeof body.input_type !== 'string' || !INPUT_TYPES.has(body.input_type)) {
    return validation('Malformed input request: #/input_type: required key [input_type] not found or not one of search_document, search_query, classification, clustering, please reformat your input and try again.');
  }
  const inputTokens = script?.usage?.prompt_tokens ?? texts.reduce((n: number, t: string) => n + estimateTokens(t), 0);
  return { body: { embeddings: texts.map((t: string) => mockVector(t, 1024)), id: randomUUID(), response_type: 'embeddings_floats', texts }, inputTokens };
}

/** The model's native answer, or the ValidationException Bedrock sends for the body. */
export function invokeEmbedding(model: string, body: unknown, script: Partial<ScriptedReply> | undefined): InvokeAnswer | AwsError {
  if (!isRecord(body)) return validation('Malformed input request: expected a JSON object, please reformat your input and try again.');
  return TITAN.has(model) ? titan(body, script) : cohere(body, script);
}
