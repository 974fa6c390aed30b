// OpenAI's embeddings wire as the gateway reads and writes it: the request body it accepts, the
// input as a list, the token bounds it reserves and estimates by, and the list it answers with.
import { z } from 'zod';
import { assertModelName } from '../providers/model-id.ts';
import type { ParsedEmbeddings } from '../providers/types.ts';
import type { Usage } from '../wire/usage.ts';
import { countTokens } from './tokens.ts';
import { refuseUnstorableName, unstorable } from '../input/storable.ts';

/** OpenAI's limit on inputs per request. */
const MAX_INPUTS = 2048;

const tokenIds = z.array(z.int().nonnegative()).min(1);
export const embeddingsBodySchema = z
  .object({
    model: z.string().min(1),
    input: z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(MAX_INPUTS), tokenIds, z.array(tokenIds).min(1).max(MAX_INPUTS)]),
    encoding_format: z.enum(['float', 'base64']).optional(),
    dimensions: z.int().positive().optional(),
    user: z.string().optional(),
  })
  .strict();
export type EmbeddingsBody = z.infer<typeof embeddingsBodySchema>;

/** The request as a list: a string or one token array is one input. */
export function inputList(input: EmbeddingsBody['input']): string[] | number[][] {
  if (typeof input === 'string') return [input];
  if (input.length > 0 && typeof input[0] === 'number') return [input as number[]];
  return input as string[] | number[][];
}

/** OpenAI's base64 embedding: float32 values, little-endian. */
export function base64Embedding(values: number[]): string {
  const buf = Buffer.allocUnsafe(values.length * 4);
  for (let i = 0; i < values.length; i++) buf.writeFloatLE(values[i]!, i * 4);
  return buf.toString('base64');
}

/** An upper bound of the input's tokens without the tokenizer: a byte-level BPE token covers at least one byte. */
export function embeddingTokenBound(input: string[] | number[][]): number {
  return input.reduce((n, i) => n + (typeof i === 'string' ? Buffer.byteLength(i) : i.length), 0);
}

/** Counted by us when the vendor reports no tokens (flagged estimated). */
export function estimateEmbeddingTokens(input: string[] | number[][]): number {
  return input.reduce((n, i) => n + (typeof i === 'string' ? countTokens(i) : i.length), 0);
}

export function embeddingsResponse(parsed: ParsedEmbeddings, model: string, usage: Usage, format: 'float' | 'base64'): Record<string, unknown> {
  return {
    object: 'list',
    data: parsed.vectors.map((v, index) => ({ object: 'embedding', index, embedding: format === 'base64' ? base64Embedding(v) : v })),
    model,
    usage: { prompt_tokens: usage.promptTokens, total_tokens: usage.promptTokens },
  };
}

/**
 * The fields that name something cannot hold NUL or a lone surrogate (PostgreSQL cannot store
 * them, and the call's record keeps the model). The input is text to embed: it may hold anything.
 */
export function refuseUnnamable(body: EmbeddingsBody): void {
  assertModelName(body.model);
  if (body.user !== undefined && unstorable(body.user)) refuseUnstorableName('user');
}
