// Gemini's embeddings behind OpenAI's /v1/embeddings: one text goes to embedContent, more
// to batchEmbedContents (at most 100 a call, so larger lists are split). Each request
// names the model as `models/{model}`, the same as the URL, and carries the output size
// as outputDimensionality. Gemini reports no token count for embeddings.
import type { AdapterRequest, CallTarget, EmbeddingAdapter, EmbeddingInput, ParsedEmbeddings } from '../types.ts';
import { tryJson } from '../vendor-error.ts';
import { geminiHeaders, modelResource } from './api.ts';
import { mapGeminiError } from './errors.ts';
import { urlOf } from '../url.ts';

/** Requests per batchEmbedContents call (the API's limit). */
export const MAX_BATCH = 100;

function part(text: string, model: string, dims: number | undefined, named: boolean): Record<string, unknown> {
  return { ...(named ? { model: `models/${model}` } : {}), content: { parts: [{ text }] }, ...(dims !== undefined ? { outputDimensionality: dims } : {}) };
}

export function geminiEmbeddingRequests(req: EmbeddingInput, target: CallTarget): AdapterRequest[] {
  const texts = req.input as string[];
  const base = `${target.provider.baseUrl}/${modelResource(target.model)}`;
  const headers = geminiHeaders(target, false);
  if (texts.length === 1) {
    return [{ url: urlOf(`${base}:embedContent`), headers, body: JSON.stringify(part(texts[0]!, target.model, req.dimensions, false)) }];
  }
  const out: AdapterRequest[] = [];
  for (let i = 0; i < texts.length; i += MAX_BATCH) {
    const requests = texts.slice(i, i + MAX_BATCH).map((t) => part(t, target.model, req.dimensions, true));
    out.push({ url: urlOf(`${base}:batchEmbedContents`), headers, body: JSON.stringify({ requests }) });
  }
  return out;
}

const values = (e: unknown): number[] => {
  const v = (e as { values?: unknown } | null)?.values;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'number')) throw new SyntaxError('malformed embedding');
  return v as number[];
};

export function parseGeminiEmbeddings(texts: string[], answers: { text: string }[]): ParsedEmbeddings {
  const vectors: number[][] = [];
  for (const a of answers) {
    const j = tryJson(a.text) as { embedding?: unknown; embeddings?: unknown[] } | null;
    if (j && Array.isArray(j.embeddings)) vectors.push(...j.embeddings.map(values));
    else if (j && j.embedding) vectors.push(values(j.embedding));
    else throw new SyntaxError('not an embeddings answer');
  }
  if (vectors.length !== texts.length) throw new SyntaxError('one vector per input expected');
  return { vectors, promptTokens: null };
}

export const geminiEmbeddingAdapter: EmbeddingAdapter = {
  unsupported: (req) => (req.input.some((i) => typeof i !== 'string') ? 'token-id arrays as embedding input (send text)' : null),
  buildRequests: geminiEmbeddingRequests,
  parseResponses: (answers, req) => parseGeminiEmbeddings(req.input as string[], answers),
  mapError: mapGeminiError,
};
