// POST /v1/embeddings as OpenAI answers it, and as the OpenAI-compatible vendors that
// differ on the wire do (Mistral's strict request model and `output_dimension`; Azure's
// deployment path). Validation follows OpenAI's: unknown fields, an empty input, more than
// 2048 inputs, a bad encoding_format, `dimensions` on a model without it, and an unknown
// model (404 model_not_found) are refused before anything is embedded.
import { isRecord, type JsonObject } from '../guards.ts';
import type { ScriptedReply } from '../types.ts';
import { base64Vector, mockVector } from '../vectors.ts';
import { apiError, invalidRequest, type ApiError } from './errors.ts';
import { estimateTokens } from './text.ts';
import { MAGIC_MODELS } from '../faults.ts';

interface EmbeddingModel {
  dims: number;
  /** Takes a shorter output size (OpenAI's `dimensions`, Mistral's `output_dimension`). */
  resizable: boolean;
}

/** Embedding models the mock serves, across the vendors that speak this wire. */
export const EMBEDDING_MODELS: Readonly<Record<string, EmbeddingModel>> = {
  'text-embedding-3-small': { dims: 1536, resizable: true },
  'text-embedding-3-large': { dims: 3072, resizable: true },
  'text-embedding-ada-002': { dims: 1536, resizable: false },
  'mistral-embed': { dims: 1024, resizable: false },
  'codestral-embed': { dims: 1536, resizable: true },
  'BAAI/bge-large-en-v1.5': { dims: 1024, resizable: false },
  'BAAI/bge-base-en-v1.5': { dims: 768, resizable: false },
  'nomic-ai/nomic-embed-text-v1.5': { dims: 768, resizable: true },
  'nomic-embed-text': { dims: 768, resizable: true },
  'intfloat/e5-mistral-7b-instruct': { dims: 4096, resizable: false },
  'openai/text-embedding-3-small': { dims: 1536, resizable: true },
};

const MAX_INPUTS = 2048;
const OPENAI_FIELDS = new Set(['model', 'input', 'encoding_format', 'dimensions', 'user']);
const MISTRAL_FIELDS = new Set(['model', 'input', 'inputs', 'output_dimension', 'output_dtype', 'encoding_format', 'metadata']);

export interface EmbeddingsRequest {
  model: string;
  inputs: (string | number[])[];
  base64: boolean;
  dims: number;
}

const badInput = (): ApiError => invalidRequest("'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.", 'input');

/** Mistral's pydantic 422 for one field. */
const mistral422 = (loc: (string | number)[], type: string, msg: string, input: unknown): ApiError => ({
  status: 422,
  body: { object: 'error', message: { detail: [{ type, loc: ['body', ...loc], msg, input }] }, type: 'invalid_request_error', param: null, code: null } as never,
});

function inputsOf(input: unknown): (string | number[])[] | null {
  const isTokens = (v: unknown): v is number[] => Array.isArray(v) && v.length > 0 && v.every((t) => Number.isInteger(t) && t >= 0);
  if (typeof input === 'string') return input === '' ? null : [input];
  if (isTokens(input)) return [input];
  if (!Array.isArray(input) || input.length === 0) return null;
  if (input.every((s) => typeof s === 'string' && s !== '')) return input as string[];
  if (input.every(isTokens)) return input;
  return null;
}

/** Validates an embeddings request as the vendor does; `deployment` is Azure's model. */
export function validateEmbeddings(body: unknown, dialect: string | undefined, deployment: string | null): EmbeddingsRequest | ApiError {
  if (!isRecord(body)) return invalidRequest('The request body must be a JSON object.');
  const mistral = dialect === 'mistral';
  for (const k of Object.keys(body)) {
    if (mistral ? !MISTRAL_FIELDS.has(k) : !OPENAI_FIELDS.has(k)) {
      return mistral ? mistral422([k], 'extra_forbidden', 'Extra inputs are not permitted', body[k]) : invalidRequest(`Unrecognized request argument supplied: ${k}`);
    }
  }
  const model = deployment ?? body.model;
  if (typeof model !== 'string' || model === '') return invalidRequest('you must provide a model parameter');
  const raw = mistral ? (body.input ?? body.inputs) : body.input;
  if (raw === undefined) return mistral ? mistral422(['input'], 'missing', 'Field required', body) : invalidRequest("'input' is a required property", 'input');
  const inputs = inputsOf(raw);
  if (!inputs || (mistral && inputs.some((i) => typeof i !== 'string'))) {
    return mistral ? mistral422(['input'], 'string_type', 'Input should be a valid string', raw) : badInput();
  }
  if (inputs.length > MAX_INPUTS) return invalidRequest(`'$.input' is invalid: at most ${MAX_INPUTS} inputs may be sent at once.`, 'input');
  const format = body.encoding_format;
  if (format !== undefined && format !== 'float' && format !== 'base64') return invalidRequest(`'${String(format)}' is not one of ['float', 'base64'] - 'encoding_format'`, 'encoding_format');

  // A magic fault model that lets the call through (slow, flaky) embeds like a small model.
  const known = Object.hasOwn(EMBEDDING_MODELS, model) ? EMBEDDING_MODELS[model] : (MAGIC_MODELS as readonly string[]).includes(model) ? { dims: 8, resizable: true } : undefined;
  if (!known) return apiError(404, `The model \`${model}\` does not exist or you do not have access to it.`, 'invalid_request_error', null, 'model_not_found');
  const asked = mistral ? body.output_dimension : body.dimensions;
  let dims = known.dims;
  if (asked !== undefined && asked !== null) {
    if (!known.resizable) return invalidRequest('This model does not support specifying dimensions.', mistral ? 'output_dimension' : 'dimensions');
    if (!Number.isInteger(asked) || (asked as number) < 1 || (asked as number) > known.dims) {
      return invalidRequest(`Invalid value for 'dimensions' = ${String(asked)}. Must be between 1 and ${known.dims}.`, 'dimensions');
    }
    dims = asked as number;
  }
  return { model, inputs, base64: format === 'base64', dims };
}

/** The answer: one vector per input, in order, with the usage the vendor reports. */
export function embeddingsBody(request: EmbeddingsRequest, script: Partial<ScriptedReply> | undefined, dialect: string | undefined, seq: number): JsonObject {
  const counted = request.inputs.reduce((n, i) => n + (typeof i === 'string' ? estimateTokens(i) : i.length), 0);
  const promptTokens = script?.usage?.prompt_tokens ?? counted;
  const data = request.inputs.map((input, index) => {
    const v = mockVector(input, request.dims);
    return { object: 'embedding', index, embedding: request.base64 ? base64Vector(v) : v };
  });
  const usage = dialect === 'mistral' ? { prompt_tokens: promptTokens, total_tokens: promptTokens, completion_tokens: 0 } : { prompt_tokens: promptTokens, total_tokens: promptTokens };
  return { ...(dialect === 'mistral' ? { id: `embd-mock${String(seq).padStart(8, '0')}` } : {}), object: 'list', data, model: request.model, usage };
}
