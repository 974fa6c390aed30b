// The verifier: a small logistic model over cheap pair features that decides, for a candidate
// above the cosine floor, whether the two questions ask the same thing. It replaces "cosine ≥ a
// high threshold and no guard refuses" (a hand-set cut plus word lists fitted to false hits) with
// one learned score in which cosine, lexical overlap and every guard's verdict are weighed
// together. Everything is computed from the two questions' `analyze()` features and their cosine:
// no second embedding, so it runs synchronously inside a lookup in microseconds.
//
// The coefficients live in `verifier-weights.ts`, fitted by `bench/cache/fit-verifier.ts` on the
// tuning half of qqp_dev only (see that file and the README beside this one).
import { contentDiff, GUARDS, mentions, numbersOf, sameMultiset, stem, type TextFeatures } from './guards.ts';

/** A fitted model: `score = intercept + Σ coef[i] · feature[i]`; a hit needs score ≥ cutoff. */
export interface VerifierModel {
  /** Feature names, in the order of `coef` (a subset of FEATURE_NAMES). */
  features: readonly string[];
  coef: readonly number[];
  intercept: number;
  /** Decision threshold on the linear score (the log-odds of "duplicate"). */
  cutoff: number;
  /** Cosine below which a candidate is never a hit (the index's threshold for this embedder). */
  floor: number;
  /** Candidates must also be admitted by every guard (the guards stay hard vetoes). */
  veto: boolean;
  /** The embedder whose cosines it was fitted on. */
  embedder: string;
}

export interface VerifierVerdict {
  ok: boolean;
  /** Log-odds that the pair asks the same thing. */
  score: number;
}

/** Words that carry no topic (used for the lexical overlaps below). */
const FUNCTION_WORDS = new Set(
  ('a an the is are was were be been being am do does did have has had i me my we us our you your it its they them their this that these those ' +
    'of in on at by for with about as to from into and or but if so what which who whom how why when where can could should would will shall may might must ' +
    'get some any there here than then also just very really').split(' '),
);

function trigrams(s: string): Set<string> {
  const t = ` ${s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim()} `;
  const out = new Set<string>();
  for (let i = 0; i + 3 <= t.length; i++) out.add(t.slice(i, i + 3));
  return out;
}

function jaccard<T>(a: Set<T>, b: Set<T>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  return inter / (a.size + b.size - inter);
}

/** Longest common subsequence of two word lists, over the longer's length: word order kept. */
function orderOverlap(x: string[], y: string[]): number {
  if (x.length === 0 || y.length === 0) return 0;
  let prev = new Array<number>(y.length + 1).fill(0);
  for (let i = 1; i <= x.length; i++) {
    const cur = new Array<number>(y.length + 1).fill(0);
    for (let j = 1; j <= y.length; j++) cur[j] = x[i - 1] === y[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    prev = cur;
  }
  return prev[y.length]! / Math.max(x.length, y.length);
}

/** Every feature the fit may choose from, by name. Pure in (a, b, cosine); symmetric in a and b. */
export function pairFeatures(a: TextFeatures, b: TextFeatures, cosine: number): Record<string, number> {
  const f: Record<string, number> = {};
  f.cos = (cosine - 0.9) * 10;
  f.cos2 = f.cos * f.cos;

  const { onlyA, onlyB } = contentDiff(a, b);
  const na = onlyA.length;
  const nb = onlyB.length;
  f.diff = Math.log1p(na + nb);
  f.diff_min = Math.min(na, nb);
  f.diff_one_sided = na + nb > 0 && Math.min(na, nb) === 0 ? 1 : 0;
  f.diff_zero = na + nb === 0 ? 1 : 0;

  const ca = new Set(a.content.map(stem));
  const cb = new Set(b.content.map(stem));
  f.content_jaccard = jaccard(ca, cb);
  const wa = a.words.filter((w) => !FUNCTION_WORDS.has(w));
  const wb = b.words.filter((w) => !FUNCTION_WORDS.has(w));
  f.word_jaccard = jaccard(new Set(a.words), new Set(b.words));
  f.trigram_jaccard = jaccard(trigrams(a.raw), trigrams(b.raw));
  f.order = orderOverlap(a.words, b.words);
  f.content_order = orderOverlap(wa.map(stem), wb.map(stem));

  const la = a.words.length;
  const lb = b.words.length;
  f.length_ratio = la && lb ? Math.min(la, lb) / Math.max(la, lb) : 0;
  f.log_length = Math.log1p((la + lb) / 2);

  const xa = numbersOf(a);
  const xb = numbersOf(b);
  f.numbers_any = xa.length + xb.length > 0 ? 1 : 0;
  f.numbers_differ = sameMultiset(xa, xb) ? 0 : 1;
  const ea = a.entities.filter((e) => !mentions(b, e)).length;
  const eb = b.entities.filter((e) => !mentions(a, e)).length;
  f.entities_unmatched = Math.log1p(ea + eb);
  f.entities_both = ea > 0 && eb > 0 ? 1 : 0;
  f.entities_any = a.entities.length + b.entities.length > 0 ? 1 : 0;

  for (const g of GUARDS) f[`guard_${g.name}`] = g.check(a, b) === undefined ? 0 : 1;
  let refused = 0;
  for (const g of GUARDS) refused += f[`guard_${g.name}`]!;
  f.guards_refused = refused;
  f.guards_ok = refused === 0 ? 1 : 0;
  return f;
}

/** Names of all candidate features (for the fit script). */
export const FEATURE_NAMES: readonly string[] = Object.keys(pairFeatures(emptyFeatures(), emptyFeatures(), 0.9));

function emptyFeatures(): TextFeatures {
  return { raw: '', words: [], wordSet: new Set(), numbers: [], identifiers: [], negated: false, deictic: undefined, entities: [], questionWords: new Set(), content: [] };
}

/** Per-dimension |u − v| of two normalised vectors, scaled so a coordinate is about unit size. */
export function vectorFeatures(u: ArrayLike<number>, v: ArrayLike<number>): number[] {
  const out = new Array<number>(u.length);
  for (let i = 0; i < u.length; i++) out[i] = Math.abs(u[i]! - v[i]!) * 20;
  return out;
}

/** The model's verdict on a candidate pair (cosine below the model's floor is never a hit). */
export function verify(model: VerifierModel, a: TextFeatures, b: TextFeatures, cosine: number): VerifierVerdict {
  if (cosine < model.floor) return { ok: false, score: Number.NEGATIVE_INFINITY };
  const f = pairFeatures(a, b, cosine);
  if (model.veto && f.guards_ok !== 1) return { ok: false, score: Number.NEGATIVE_INFINITY };
  let score = model.intercept;
  for (let i = 0; i < model.features.length; i++) score += model.coef[i]! * (f[model.features[i]!] ?? 0);
  return { ok: score >= model.cutoff, score };
}
