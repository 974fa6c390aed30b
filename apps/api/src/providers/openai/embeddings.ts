// OpenAI's /v1/embeddings, and the shape the OpenAI-compatible vendors share: the body
// carries the inputs (texts or token ids), the model and the optional output size; the
// answer lists one `embedding` per input with its `index`, and usage.prompt_tokens.
// Vectors are asked for as floats; a base64 answer (float32, little-endian) is read too.
import type { AdapterRequest, CallTarget, EmbeddingAdapter, EmbeddingAnswer, EmbeddingInput, ParsedEmbeddings } from '../types.ts';
import { mapOpenAIError } from './adapter.ts';
import { tryJson } from '../vendor-error.ts';
import { urlOf } from '../url.ts';

/** How an OpenAI-shaped vendor names the request fields it takes. */
export interface EmbeddingFields {
  /** The body names the model (false where the URL does: Azure's deployment). */
  model: boolean;
  /** The vendor's name for OpenAI's `dimensions`, or null when it has none. */
  dimensions: string | null;
  /** Forwards OpenAI's `user`. */
  user: boolean;
}

export const OPENAI_FIELDS: EmbeddingFields = { model: true, dimensions: 'dimensions', user: true };

export function openAIEmbeddingBody(req: EmbeddingInput, model: string, fields: EmbeddingFields): Record<string, unknown> {
  return {
    ...(fields.model ? { model } : {}),
    input: req.input,
    ...(req.dimensions !== undefined && fields.dimensions ? { [fields.dimensions]: req.dimensions } : {}),
    ...(req.user !== undefined && fields.user ? { user: req.user } : {}),
  };
}

export function embeddingRequest(url: URL, headers: Record<string, string>, body: Record<string, unknown>): AdapterRequest {
  return { url, headers: { 'content-type': 'application/json', accept: 'application/json', ...headers }, body: JSON.stringify(body) };
}

/** float32 little-endian values from OpenAI's base64 embedding. */
export function decodeBase64Vector(b64: string): number[] {
  const buf = Buffer.from(b64, 'base64');
  const out: number[] = new Array<number>(Math.floor(buf.length / 4));
  for (let i = 0; i < out.length; i++) out[i] = buf.readFloatLE(i * 4);
  return out;
}

/** An OpenAI-shaped embeddings answer: vectors in input order, and the vendor's token count. */
export function parseOpenAIEmbeddings(answer: EmbeddingAnswer, expected: number): ParsedEmbeddings {
  const j = tryJson(answer.text) as { data?: { index?: number; embedding?: unknown }[]; usage?: { prompt_tokens?: unknown } } | null;
  if (!j || !Array.isArray(j.data)) throw new SyntaxError('not an embeddings list');
  const vectors: number[][] = new Array<number[]>(expected);
  j.data.forEach((d, i) => {
    const at = typeof d.index === 'number' ? d.index : i;
    const e = d.embedding;
    const v = typeof e === 'string' ? decodeBase64Vector(e) : Array.isArray(e) && e.every((x) => typeof x === 'number') ? (e as number[]) : null;
    if (!v || at < 0 || at >= expected) throw new SyntaxError('malformed embedding');
    vectors[at] = v;
  });
  if (j.data.length !== expected || vectors.some((v) => v === undefined)) throw new SyntaxError('one vector per input expected');
  const tokens = j.usage?.prompt_tokens;
  return { vectors, promptTokens: typeof tokens === 'number' ? tokens : null };
}

/** OpenAI itself, and an admin-registered OpenAI-compatible endpoint without a profile. */
export const openaiEmbeddingAdapter: EmbeddingAdapter = {
  unsupported: () => null,
  buildRequests(req: EmbeddingInput, target: CallTarget) {
    const url = urlOf(`${target.provider.baseUrl}/embeddings`);
    return [embeddingRequest(url, target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {}, openAIEmbeddingBody(req, target.model, OPENAI_FIELDS))];
  },
  parseResponses: (answers, req) => parseOpenAIEmbeddings(answers[0]!, req.input.length),
  mapError: mapOpenAIError,
};
