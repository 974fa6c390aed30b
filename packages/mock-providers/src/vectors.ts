// Embedding vectors for the mock vendors: deterministic (the same text always gives the
// same vector), unit length like the vendors' normalised embeddings, and encodable the way
// OpenAI's `encoding_format: "base64"` sends them (little-endian float32).
import { createHash } from 'node:crypto';

/** A unit vector of `dims` components derived from the text (or the token ids) alone. */
export function mockVector(input: string | number[], dims: number): number[] {
  const seed = typeof input === 'string' ? input : input.join(',');
  const out: number[] = [];
  for (let block = 0; out.length < dims; block++) {
    const digest = createHash('sha256').update(`${block}:${seed}`).digest();
    for (let i = 0; i + 1 < digest.length && out.length < dims; i += 2) out.push(digest.readUInt16LE(i) / 32_768 - 1);
  }
  const norm = Math.sqrt(out.reduce((s, v) => s + v * v, 0)) || 1;
  return out.map((v) => Math.fround(v / norm));
}

/** OpenAI's base64 embedding: the float32 values, little-endian, base64-encoded. */
export function base64Vector(values: number[]): string {
  const buf = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => buf.writeFloatLE(v, i * 4));
  return buf.toString('base64');
}
