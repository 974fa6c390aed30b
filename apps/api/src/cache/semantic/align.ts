// Token alignment: a second signal from the same model as the sentence vector, which sees
// what mean pooling hides. MiniLM's per-token output vectors (last_hidden_state, before
// pooling) of two questions are aligned greedily, BERTScore-style: each token takes its
// best cosine against the other question's tokens. A question's *content alignment* is the
// mean of that best cosine over its content tokens (not a stop word, not punctuation); a
// pair's is the lower of its two questions'. A word of one question with no counterpart in
// the other ("… of science", "… online", "Pakistani" for "Indian") pulls it down even when
// the pooled vectors stay close.
//
// Token vectors are stored per cache entry, so they are kept small: each token's unit vector
// as int8 with one float scale, at most MAX_TOKEN_VECTORS tokens per question ([CLS] and
// [SEP] are left out), and a byte per token saying whether it is a content token.

/** Tokens kept per question (its first ones); a MiniLM question of 1,000 characters has about 250. */
export const MAX_TOKEN_VECTORS = 64;

/** The token vectors of one question, quantised. */
export interface TokenVectors {
  readonly count: number;
  readonly dims: number;
  /** count × dims, token t's unit vector ≈ data[t·dims + d] × scales[t]. */
  readonly data: Int8Array;
  readonly scales: Float32Array;
  /** 1 for a content token, 0 for a stop word or punctuation. */
  readonly content: Uint8Array;
}

/** A sentence vector and, when the embedder has them, its token vectors. */
export interface Embedding {
  vector: Float32Array;
  tokens?: TokenVectors;
}

/**
 * Function words that carry no subject of their own. WordPiece pieces are compared as they
 * are ("##s" is content): a piece of a longer word is part of its subject.
 */
const STOP = new Set(
  (
    'a an the is are was were be been being am do does did doing done have has had having i me my mine myself we us our ours you your yours ' +
    'it its they them their theirs this that these those there here of in on at by for with about as into through during out off up down over ' +
    'under again further then once and or but if so because while until can could should would will shall may might must what which who whom ' +
    'whose when where why how any all both each few some such only own same very just also too s t get got getting one ones to from than'
  ).split(' '),
);

/** Whether a WordPiece token is a content token: not a stop word, not only punctuation or symbols. */
export function isContentPiece(piece: string): boolean {
  return !STOP.has(piece) && /[\p{L}\p{N}]/u.test(piece);
}

/**
 * Quantises token vectors: `hidden` holds `count` rows of `dims` floats (already without
 * [CLS] and [SEP]); each row is normalised, then stored as int8 with its own scale.
 * At most MAX_TOKEN_VECTORS rows are kept.
 */
export function quantizeTokens(hidden: Float32Array, count: number, dims: number, content: ArrayLike<boolean | number>): TokenVectors {
  const n = Math.min(count, MAX_TOKEN_VECTORS);
  const data = new Int8Array(n * dims);
  const scales = new Float32Array(n);
  const mask = new Uint8Array(n);
  for (let t = 0; t < n; t++) {
    const base = t * dims;
    let norm = 0;
    let max = 0;
    for (let d = 0; d < dims; d++) {
      const x = hidden[base + d]!;
      norm += x * x;
      if (Math.abs(x) > max) max = Math.abs(x);
    }
    norm = Math.sqrt(norm);
    mask[t] = content[t] ? 1 : 0;
    if (norm === 0 || max === 0) continue;
    const unitMax = max / norm;
    scales[t] = unitMax / 127;
    const k = 127 / max;
    for (let d = 0; d < dims; d++) data[base + d] = Math.round(hidden[base + d]! * k);
  }
  return { count: n, dims, data, scales, content: mask };
}

/** Cosine of token i of `a` and token j of `b` (both unit vectors, up to quantisation). */
function tokenCosine(a: TokenVectors, i: number, b: TokenVectors, j: number): number {
  const d = a.dims;
  const ad = a.data;
  const bd = b.data;
  const ai = i * d;
  const bj = j * d;
  let s0 = 0;
  let s1 = 0;
  let k = 0;
  for (; k + 1 < d; k += 2) {
    s0 += ad[ai + k]! * bd[bj + k]!;
    s1 += ad[ai + k + 1]! * bd[bj + k + 1]!;
  }
  for (; k < d; k++) s0 += ad[ai + k]! * bd[bj + k]!;
  return (s0 + s1) * a.scales[i]! * b.scales[j]!;
}

/**
 * The pair's content alignment: for each question, the mean over its content tokens of their
 * best cosine with any token of the other; the lower of the two. 1 when a question has no
 * content token (nothing of its own to miss), 0 when either has no tokens at all.
 */
export function contentAlignment(a: TokenVectors, b: TokenVectors): number {
  if (a.count === 0 || b.count === 0 || a.dims !== b.dims) return 0;
  const best = (x: TokenVectors, y: TokenVectors): number => {
    let sum = 0;
    let n = 0;
    for (let i = 0; i < x.count; i++) {
      if (!x.content[i]) continue;
      let m = -1;
      for (let j = 0; j < y.count; j++) {
        const c = tokenCosine(x, i, y, j);
        if (c > m) m = c;
      }
      sum += m;
      n++;
    }
    return n === 0 ? 1 : sum / n;
  };
  return Math.min(best(a, b), best(b, a));
}

/** Bytes `encodeTokens` writes for these token vectors. */
function encodedLength(t: TokenVectors): number {
  return 4 + t.count * (4 + 1 + t.dims);
}

/**
 * Token vectors as bytes (little-endian): count (u16), dims (u16), scales (f32 × count),
 * content flags (u8 × count), data (i8 × count × dims).
 */
export function encodeTokens(t: TokenVectors): Uint8Array {
  const out = new Uint8Array(encodedLength(t));
  const view = new DataView(out.buffer);
  view.setUint16(0, t.count, true);
  view.setUint16(2, t.dims, true);
  let o = 4;
  for (let i = 0; i < t.count; i++, o += 4) view.setFloat32(o, t.scales[i]!, true);
  out.set(t.content, o);
  o += t.count;
  out.set(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength), o);
  return out;
}

/** The inverse of encodeTokens; undefined when the bytes are not a whole token block. */
export function decodeTokens(bytes: Uint8Array): TokenVectors | undefined {
  if (bytes.byteLength < 4) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.getUint16(0, true);
  const dims = view.getUint16(2, true);
  if (bytes.byteLength !== 4 + count * (5 + dims)) return undefined;
  const scales = new Float32Array(count);
  let o = 4;
  for (let i = 0; i < count; i++, o += 4) scales[i] = view.getFloat32(o, true);
  const content = bytes.slice(o, o + count);
  o += count;
  const data = new Int8Array(bytes.slice(o, o + count * dims).buffer);
  return { count, dims, data, scales, content };
}

/**
 * An embedding as the bytes the cache stores and sends to replicas: the sentence vector
 * (float32 × dims), then the token block when there is one. Rows written before token
 * vectors were stored hold the sentence vector alone.
 */
export function encodeEmbedding(e: Embedding): Uint8Array {
  const v = new Uint8Array(e.vector.buffer, e.vector.byteOffset, e.vector.byteLength);
  if (!e.tokens) return v.slice();
  const t = encodeTokens(e.tokens);
  const out = new Uint8Array(v.byteLength + t.byteLength);
  out.set(v);
  out.set(t, v.byteLength);
  return out;
}

/** The inverse of encodeEmbedding, for an embedder of `dims` dimensions (the sentence vector's length). */
export function decodeEmbedding(bytes: Uint8Array, dims: number): Embedding {
  const n = Math.min(bytes.byteLength, dims * 4) - (Math.min(bytes.byteLength, dims * 4) % 4);
  const vector = new Float32Array(n / 4);
  new Uint8Array(vector.buffer).set(bytes.subarray(0, n));
  const tokens = bytes.byteLength > dims * 4 ? decodeTokens(bytes.subarray(dims * 4)) : undefined;
  return tokens ? { vector, tokens } : { vector };
}
