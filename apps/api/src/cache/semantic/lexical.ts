// Fallback embedder when no model can load: a hashed bag of words, word bigrams and
// character trigrams (signed feature hashing), L2-normalised. It only sees surface
// overlap, so it is paired with its own, stricter default threshold (index.ts).
import type { Embedder } from './types.ts';

export interface LexicalEmbedderOptions {
  /** Vector length (default 1024). */
  dims?: number;
}

const WORD_WEIGHT = 1;
const BIGRAM_WEIGHT = 0.7;
const TRIGRAM_WEIGHT = 0.35;

export class LexicalEmbedder implements Embedder {
  readonly name = 'lexical';
  readonly source = 'built-in';
  readonly dims: number;

  constructor(opts: LexicalEmbedderOptions = {}) {
    this.dims = opts.dims ?? 1024;
  }

  embedOne(text: string): Float32Array {
    const v = new Float32Array(this.dims);
    const words = lexicalWords(text);
    const add = (feature: string, w: number): void => {
      const h = fnv1a(feature);
      v[h % this.dims]! += h & 0x80000000 ? -w : w;
    };
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      add(`w:${w}`, WORD_WEIGHT);
      if (i + 1 < words.length) add(`b:${w} ${words[i + 1]}`, BIGRAM_WEIGHT);
      const padded = `<${w}>`;
      for (let j = 0; j + 3 <= padded.length; j++) add(`c:${padded.slice(j, j + 3)}`, TRIGRAM_WEIGHT);
    }
    let norm = 0;
    for (let i = 0; i < v.length; i++) norm += v[i]! * v[i]!;
    norm = Math.sqrt(norm);
    if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
    return v;
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    return Promise.resolve(texts.map((t) => this.embedOne(t)));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Lowercased, accent-free words and numbers. */
export function lexicalWords(text: string): string[] {
  return (
    text
      .normalize('NFD')
      .replace(/\p{Mn}/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+(?:['.][\p{L}\p{N}]+)*/gu) ?? []
  );
}

/** 32-bit FNV-1a over UTF-16 code units. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
