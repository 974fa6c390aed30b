// Fits the semantic cache's verifier (apps/api/src/cache/semantic/verifier.ts) on the TUNING
// half of qqp_dev only (its first 8,000 pairs) and chooses its settings by cross-validation
// inside that half. It never reads a pair from 8,000 on. See README.md beside this file.
//
//   node bench/cache/fit-verifier.ts                 # the cross-validation table (nested, honest)
//   node bench/cache/fit-verifier.ts --write         # also refit the chosen setting and write verifier-weights.ts
//
// Reproducible: folds come from a fixed seed, the fit is deterministic (Newton's method on an
// L2-penalised logistic loss), and the cosines are MiniLM's (cached between runs in the OS temp
// directory, keyed by the model and the texts).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyze, OnnxMiniLM, type TextFeatures } from '../../apps/api/src/cache/semantic/index.ts';
import { pairFeatures, vectorFeatures, type VerifierModel } from '../../apps/api/src/cache/semantic/verifier.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The tuning half: the only pairs this script reads. */
export const TUNING_PAIRS = 8000;
const SEED = 20240613;
const FOLDS = 5;
const REPEATS = 3;
/** Recall (of every duplicate in the data, not only those above the floor) at which the cutoff is set. */
export const TARGET_RECALL = Number(flag('target-recall') ?? 0.115);
const MIN_RECALL = 0.11;

interface Pair {
  a: string;
  b: string;
  duplicate: boolean;
}

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? undefined : (process.argv[i + 1] ?? '');
}

const pairsFile = flag('pairs') ?? join(root, '..', 'shared', 'data', 'paraphrase', 'qqp_dev.jsonl');
const llmFile = flag('llm') ?? join(root, '..', 'shared', 'data', 'paraphrase', 'llm_paraphrases.json');
const modelDir = flag('model-dir') ?? join(root, '..', 'shared', 'models', 'all-MiniLM-L6-v2');
const write = process.argv.includes('--write');

function readTuning(): Pair[] {
  const rows: Pair[] = [];
  for (const line of readFileSync(pairsFile, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const j = JSON.parse(line) as { a?: unknown; b?: unknown; duplicate?: unknown };
    if (typeof j.a !== 'string' || typeof j.b !== 'string') continue;
    rows.push({ a: j.a, b: j.b, duplicate: j.duplicate === 1 || j.duplicate === true || j.duplicate === '1' });
    if (rows.length === TUNING_PAIRS) break;
  }
  return rows;
}

function readLlm(): Pair[] {
  const rows = JSON.parse(readFileSync(llmFile, 'utf8')) as { origin: string; similar: string }[];
  return rows.filter((r) => typeof r.origin === 'string' && typeof r.similar === 'string').map((r) => ({ a: r.origin, b: r.similar, duplicate: true }));
}

/** MiniLM vectors (normalised) of each pair's two texts, cached in the temp directory. */
async function vectors(pairs: Pair[]): Promise<{ cos: number[]; u: Float32Array[]; v: Float32Array[] }> {
  const texts = [...new Set(pairs.flatMap((p) => [p.a, p.b]))];
  const hash = createHash('sha256').update(modelDir).update(JSON.stringify(texts)).digest('hex').slice(0, 16);
  const file = join(tmpdir(), `fit-verifier-vec-${hash}.bin`);
  const dims = 384;
  let all: Float32Array;
  if (existsSync(file)) all = new Float32Array(readFileSync(file).buffer.slice(0));
  else {
    const embedder = new OnnxMiniLM({ modelDir, maxBatch: 32, maxQueue: 32 * 8 });
    await embedder.ready;
    all = new Float32Array(texts.length * dims);
    for (let i = 0; i < texts.length; i += 256) {
      const part = texts.slice(i, i + 256);
      const jobs: Promise<Float32Array[]>[] = [];
      for (let j = 0; j < part.length; j += 32) jobs.push(embedder.embed(part.slice(j, j + 32)));
      (await Promise.all(jobs)).flat().forEach((x, k) => all.set(x, (i + k) * dims));
      process.stderr.write(`[fit-verifier] embedded ${Math.min(i + 256, texts.length)}/${texts.length}\n`);
    }
    await embedder.close();
    writeFileSync(file, Buffer.from(all.buffer));
  }
  const at = new Map(texts.map((t, i) => [t, i]));
  const get = (t: string): Float32Array => {
    const x = all.slice(at.get(t)! * dims, (at.get(t)! + 1) * dims);
    let n = 0;
    for (const c of x) n += c * c;
    n = Math.sqrt(n) || 1;
    for (let i = 0; i < dims; i++) x[i]! /= n;
    return x;
  };
  const u = pairs.map((p) => get(p.a));
  const v = pairs.map((p) => get(p.b));
  const cos = u.map((x, i) => x.reduce((s, c, k) => s + c * v[i]![k]!, 0));
  return { cos, u, v };
}

// ---------------------------------------------------------------------------------------
// Logistic regression (L2, Newton's method on standardised features)

interface Fit {
  coef: number[];
  intercept: number;
}

function solve(A: number[][], b: number[]): number[] {
  const n = b.length;
  const M = A.map((r, i) => [...r, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r]![c]!) > Math.abs(M[p]![c]!)) p = r;
    [M[c], M[p]] = [M[p]!, M[c]!];
    const piv = M[c]![c]!;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const k = M[r]![c]! / piv;
      if (k === 0) continue;
      for (let j = c; j <= n; j++) M[r]![j]! -= k * M[c]![j]!;
    }
  }
  return M.map((r, i) => r[n]! / r[i]!);
}

/** Fits on rows X (raw features) and labels y; returns coefficients on the RAW features. */
export function fitLogistic(X: number[][], y: number[], lambda: number): Fit {
  const n = X.length;
  const d = X[0]!.length;
  const mean = new Array<number>(d).fill(0);
  const sd = new Array<number>(d).fill(0);
  for (const r of X) r.forEach((v, j) => (mean[j]! += v / n));
  for (const r of X) r.forEach((v, j) => (sd[j]! += (v - mean[j]!) ** 2 / n));
  for (let j = 0; j < d; j++) sd[j] = Math.sqrt(sd[j]!) || 1;
  const Z = X.map((r) => [1, ...r.map((v, j) => (v - mean[j]!) / sd[j]!)]);
  let w = d > 60 ? newtonCG(Z, y, lambda) : new Array<number>(d + 1).fill(0);
  for (let it = 0; it < (d > 60 ? 0 : 50); it++) {
    const g = new Array<number>(d + 1).fill(0);
    const H = Array.from({ length: d + 1 }, () => new Array<number>(d + 1).fill(0));
    for (let i = 0; i < n; i++) {
      const z = Z[i]!;
      let s = 0;
      for (let j = 0; j <= d; j++) s += w[j]! * z[j]!;
      const p = 1 / (1 + Math.exp(-s));
      const r = p - y[i]!;
      const q = p * (1 - p);
      for (let j = 0; j <= d; j++) {
        g[j]! += r * z[j]!;
        const qz = q * z[j]!;
        const Hj = H[j]!;
        for (let k = j; k <= d; k++) Hj[k]! += qz * z[k]!;
      }
    }
    for (let j = 0; j <= d; j++) for (let k = 0; k < j; k++) H[j]![k] = H[k]![j]!;
    for (let j = 1; j <= d; j++) {
      g[j]! += lambda * w[j]!;
      H[j]![j]! += lambda;
    }
    H[0]![0]! += 1e-9;
    const step = solve(H, g);
    let moved = 0;
    w = w.map((v, j) => {
      moved = Math.max(moved, Math.abs(step[j]!));
      return v - step[j]!;
    });
    if (moved < 1e-8) break;
  }
  const coef = w.slice(1).map((v, j) => v / sd[j]!);
  const intercept = w[0]! - coef.reduce((s, c, j) => s + c * mean[j]!, 0);
  return { coef, intercept };
}

/** Newton's method with conjugate-gradient steps (Hessian-vector products only), for many features. */
function newtonCG(Z: number[][], y: number[], lambda: number): number[] {
  const n = Z.length;
  const d = Z[0]!.length;
  const w = new Array<number>(d).fill(0);
  const dot = (a: number[], b: number[]): number => a.reduce((s, x, i) => s + x * b[i]!, 0);
  for (let it = 0; it < 30; it++) {
    const p = Z.map((z) => 1 / (1 + Math.exp(-dot(w, z))));
    const g = new Array<number>(d).fill(0);
    Z.forEach((z, i) => {
      const r = p[i]! - y[i]!;
      for (let j = 0; j < d; j++) g[j]! += r * z[j]!;
    });
    for (let j = 1; j < d; j++) g[j]! += lambda * w[j]!;
    const Hv = (v: number[]): number[] => {
      const out = new Array<number>(d).fill(0);
      Z.forEach((z, i) => {
        const q = p[i]! * (1 - p[i]!) * dot(z, v);
        for (let j = 0; j < d; j++) out[j]! += q * z[j]!;
      });
      for (let j = 1; j < d; j++) out[j]! += lambda * v[j]!;
      out[0]! += 1e-6 * v[0]!;
      return out;
    };
    // Solve H s = g by CG.
    const s = new Array<number>(d).fill(0);
    let r = [...g];
    let q = [...r];
    let rr = dot(r, r);
    for (let k = 0; k < 50 && rr > 1e-12; k++) {
      const Hq = Hv(q);
      const alpha = rr / dot(q, Hq);
      for (let j = 0; j < d; j++) {
        s[j]! += alpha * q[j]!;
        r[j]! -= alpha * Hq[j]!;
      }
      const rr2 = dot(r, r);
      q = r.map((x, j) => x + (rr2 / rr) * q[j]!);
      rr = rr2;
    }
    let moved = 0;
    for (let j = 0; j < d; j++) {
      w[j]! -= s[j]!;
      moved = Math.max(moved, Math.abs(s[j]!));
    }
    if (moved < 1e-6) break;
  }
  return w;
}

const scoreOf = (fit: Fit, x: number[]): number => fit.intercept + x.reduce((s, v, j) => s + fit.coef[j]! * v, 0);

// ---------------------------------------------------------------------------------------
// Data, folds, settings

interface Row {
  /** Index in the tuning half. */
  i: number;
  cos: number;
  dup: boolean;
  f: Record<string, number>;
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fold of each pair, stratified by label, shuffled with a seed. */
function folds(labels: boolean[], k: number, seed: number): number[] {
  const r = rng(seed);
  const out = new Array<number>(labels.length).fill(0);
  for (const cls of [true, false]) {
    const idx = labels.flatMap((l, i) => (l === cls ? [i] : []));
    for (let i = idx.length - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1));
      [idx[i], idx[j]] = [idx[j]!, idx[i]!];
    }
    idx.forEach((p, n) => (out[p] = n % k));
  }
  return out;
}

const LEXICAL = [
  'cos', 'cos2', 'diff', 'diff_min', 'diff_one_sided', 'diff_zero', 'content_jaccard', 'word_jaccard', 'trigram_jaccard', 'order', 'content_order',
  'length_ratio', 'log_length', 'numbers_any', 'numbers_differ', 'entities_unmatched', 'entities_both', 'entities_any',
];
const GUARD_FEATURES = [
  'guard_deictic', 'guard_numbers', 'guard_identifiers', 'guard_negation', 'guard_antonym', 'guard_question-word', 'guard_question-form',
  'guard_swapped-roles', 'guard_entity', 'guard_person', 'guard_degree', 'guard_content',
];

const VECTOR = Array.from({ length: 384 }, (_, k) => `absdiff_${k}`);

export interface Setting {
  name: string;
  floor: number;
  features: string[];
  lambda: number;
  /** Only pairs every guard admits are candidates (the guards stay hard vetoes). */
  veto: boolean;
}

function settings(): Setting[] {
  const sets: [string, string[], boolean][] = [
    ['cos|veto (the old rule)', ['cos'], true],
    ['cos+guards', ['cos', ...GUARD_FEATURES], false],
    ['lexical', LEXICAL, false],
    ['lexical+guards', [...LEXICAL, ...GUARD_FEATURES], false],
    ['lexical|veto', LEXICAL, true],
  ];
  const out: Setting[] = [];
  for (const floor of [0.88, 0.9, 0.92])
    for (const [n, features, veto] of sets)
      for (const lambda of [1, 10, 100]) out.push({ name: `${n} floor ${floor} λ ${lambda}`, floor, features, lambda, veto });
  return out;
}

const candidate = (s: Setting, r: Row): boolean => r.cos >= s.floor && (!s.veto || r.f.guards_ok === 1);
const vec = (s: Setting, r: Row): number[] => s.features.map((n) => r.f[n]!);

function fitSetting(s: Setting, rows: Row[]): Fit {
  const c = rows.filter((r) => candidate(s, r));
  return fitLogistic(
    c.map((r) => vec(s, r)),
    c.map((r) => (r.dup ? 1 : 0)),
    s.lambda,
  );
}

/** Out-of-fold scores (−∞ for non-candidates) of `rows`, k-fold with the given seed. */
function oofScores(s: Setting, rows: Row[], seed: number): number[] {
  const fold = folds(rows.map((r) => r.dup), FOLDS, seed);
  const out = new Array<number>(rows.length).fill(Number.NEGATIVE_INFINITY);
  for (let k = 0; k < FOLDS; k++) {
    const fit = fitSetting(s, rows.filter((_, i) => fold[i] !== k));
    rows.forEach((r, i) => {
      if (fold[i] === k && candidate(s, r)) out[i] = scoreOf(fit, vec(s, r));
    });
  }
  return out;
}

/** The cutoff that serves `recall` of the duplicates in `rows` (by their scores). */
function cutoffForRecall(scores: number[], rows: Row[], recall: number): number {
  const dups = rows.filter((r) => r.dup).length;
  const need = Math.ceil(recall * dups);
  const dupScores = scores.filter((_, i) => rows[i]!.dup).sort((a, b) => b - a);
  const c = dupScores[Math.min(need, dupScores.length) - 1] ?? Number.POSITIVE_INFINITY;
  // Fewer candidates than the target: the lowest candidate score (never −∞, which would serve everything).
  return Number.isFinite(c) ? c : (dupScores.filter(Number.isFinite).at(-1) ?? Number.POSITIVE_INFINITY);
}

function tally(scores: number[], rows: Row[], cutoff: number): { tp: number; fp: number; dups: number } {
  let tp = 0;
  let fp = 0;
  let dups = 0;
  rows.forEach((r, i) => {
    if (r.dup) dups++;
    if (scores[i]! >= cutoff) r.dup ? tp++ : fp++;
  });
  return { tp, fp, dups };
}

/**
 * Nested cross-validation of the whole procedure: for each outer fold, the model is fitted and
 * its cutoff set (at TARGET_RECALL on inner out-of-fold scores) on the other folds alone, then
 * counted on the outer fold. Pooled over folds and repeats.
 */
function nested(s: Setting, rows: Row[]): { precision: number; recall: number; tp: number; fp: number; foldPrecision: number[] } {
  let tp = 0;
  let fp = 0;
  let dups = 0;
  const foldPrecision: number[] = [];
  for (let rep = 0; rep < REPEATS; rep++) {
    const fold = folds(rows.map((r) => r.dup), FOLDS, SEED + rep);
    for (let k = 0; k < FOLDS; k++) {
      const train = rows.filter((_, i) => fold[i] !== k);
      const test = rows.filter((_, i) => fold[i] === k);
      const inner = oofScores(s, train, SEED + 1000 + rep * 10 + k);
      const cutoff = cutoffForRecall(inner, train, TARGET_RECALL);
      const fit = fitSetting(s, train);
      const scores = test.map((r) => (candidate(s, r) ? scoreOf(fit, vec(s, r)) : Number.NEGATIVE_INFINITY));
      const t = tally(scores, test, cutoff);
      tp += t.tp;
      fp += t.fp;
      dups += t.dups;
      foldPrecision.push(t.tp / Math.max(1, t.tp + t.fp));
    }
  }
  return { precision: tp / Math.max(1, tp + fp), recall: tp / dups, tp: tp / REPEATS, fp: fp / REPEATS, foldPrecision };
}

function rowsOf(pairs: Pair[], { cos, u, v }: { cos: number[]; u: Float32Array[]; v: Float32Array[] }): Row[] {
  const cache = new Map<string, TextFeatures>();
  const an = (t: string): TextFeatures => {
    let f = cache.get(t);
    if (!f) cache.set(t, (f = analyze(t)));
    return f;
  };
  // Features only where a candidate can be (every floor tried is ≥ 0.88).
  return pairs.map((p, i) => {
    if (cos[i]! < 0.88) return { i, cos: cos[i]!, dup: p.duplicate, f: { guards_ok: 0 } };
    const f = pairFeatures(an(p.a), an(p.b), cos[i]!);
    const diff = vectorFeatures(u[i]!, v[i]!);
    diff.forEach((x, k) => (f[`absdiff_${k}`] = x));
    return { i, cos: cos[i]!, dup: p.duplicate, f };
  });
}

async function main(): Promise<void> {
  const tuning = readTuning();
  const llm = readLlm();
  const vt = await vectors(tuning);
  const vl = await vectors(llm);
  const rows = rowsOf(tuning, vt);
  const llmRows = rowsOf(llm, vl);
  const dups = rows.filter((r) => r.dup).length;
  console.log(`tuning half: ${rows.length} pairs, ${dups} duplicates; above 0.88: ${rows.filter((r) => r.cos >= 0.88).length}; LLM paraphrases: ${llm.length}`);

  const only = flag('setting');
  const all = settings().filter((s) => !only || s.name === only);
  const results: { s: Setting; precision: number; recall: number; tp: number; fp: number; worst: number; llm: number }[] = [];
  console.log(`\nnested ${FOLDS}-fold CV × ${REPEATS} (cutoff at recall ${TARGET_RECALL} on inner folds): pooled precision / recall, worst fold, LLM recall of a fit on all tuning pairs`);
  for (const s of all) {
    const n = nested(s, rows);
    const fit = fitSetting(s, rows);
    const cutoff = cutoffForRecall(oofScores(s, rows, SEED), rows, TARGET_RECALL);
    const llmHits = llmRows.filter((r) => candidate(s, r) && scoreOf(fit, vec(s, r)) >= cutoff).length;
    const res = { s, precision: n.precision, recall: n.recall, tp: n.tp, fp: n.fp, worst: Math.min(...n.foldPrecision), llm: llmHits / llm.length };
    results.push(res);
    console.log(`  ${s.name.padEnd(34)} ${res.precision.toFixed(4)} / ${res.recall.toFixed(3)}  (${res.tp.toFixed(0)} true, ${res.fp.toFixed(1)} false)  worst ${res.worst.toFixed(3)}  LLM ${res.llm.toFixed(3)}`);
  }

  // The choice: the best nested precision among the learned settings (the old rule is listed for
  // reference only) whose nested recall ≥ MIN_RECALL and LLM paraphrase recall ≥ 0.25.
  const eligible = results.filter((r) => !r.s.name.startsWith('cos|veto') && r.recall >= MIN_RECALL && r.llm >= 0.25).sort((x, y) => y.precision - x.precision);
  const best = eligible[0];
  if (!best) throw new Error('no setting reaches the recall floors');
  console.log(`\nchosen: ${best.s.name}: nested CV precision ${best.precision.toFixed(4)} at recall ${best.recall.toFixed(3)}, LLM ${best.llm.toFixed(3)}`);

  const fit = fitSetting(best.s, rows);
  const oof = oofScores(best.s, rows, SEED);
  const cutoff = cutoffForRecall(oof, rows, TARGET_RECALL);
  const o = tally(oof, rows, cutoff);
  console.log(`  5-fold out-of-fold at the final cutoff ${cutoff.toFixed(4)}: precision ${(o.tp / (o.tp + o.fp)).toFixed(4)}, recall ${(o.tp / o.dups).toFixed(3)} (${o.tp} true, ${o.fp} false)`);
  const inSample = tally(rows.map((r) => (candidate(best.s, r) ? scoreOf(fit, vec(best.s, r)) : Number.NEGATIVE_INFINITY)), rows, cutoff);
  console.log(`  in sample (the final fit on all 8,000): precision ${(inSample.tp / (inSample.tp + inSample.fp)).toFixed(4)}, recall ${(inSample.tp / inSample.dups).toFixed(3)} (${inSample.tp} true, ${inSample.fp} false)`);
  best.s.features.forEach((n, j) => console.log(`    ${n.padEnd(22)} ${fit.coef[j]!.toFixed(4)}`));
  console.log(`    ${'(intercept)'.padEnd(22)} ${fit.intercept.toFixed(4)}`);

  if (write) {
    const model: VerifierModel = { features: best.s.features, coef: fit.coef.map((c) => Number(c.toFixed(6))), intercept: Number(fit.intercept.toFixed(6)), cutoff: Number(cutoff.toFixed(6)), floor: best.s.floor, veto: best.s.veto, embedder: 'onnx-minilm' };
    const file = join(root, 'apps', 'api', 'src', 'cache', 'semantic', 'verifier-weights.ts');
    const text = `// Generated by \`node bench/cache/fit-verifier.ts --write\`; do not edit by hand.
//
// Fitted on the TUNING half of qqp_dev only (its first ${TUNING_PAIRS} pairs; the pairs from ${TUNING_PAIRS} on were
// never read): L2-penalised logistic regression (Newton's method, standardised features) on the
// pairs whose MiniLM cosine is at least the floor, label = QQP "duplicate". The setting (floor,
// features, λ${best.s.veto ? ', guards as hard vetoes' : ''}) was chosen among ${all.length} by nested ${FOLDS}-fold cross-validation × ${REPEATS}
// inside the tuning half: "${best.s.name}", nested precision ${best.precision.toFixed(4)} at recall ${best.recall.toFixed(3)}.
// The cutoff is the score at which ${FOLDS}-fold out-of-fold scores serve ${TARGET_RECALL} of the half's duplicates
// (out-of-fold precision ${(o.tp / (o.tp + o.fp)).toFixed(4)}, recall ${(o.tp / o.dups).toFixed(3)}).
import type { VerifierModel } from './verifier.ts';

export const MINILM_VERIFIER: VerifierModel = ${JSON.stringify(model, null, 2)};
`;
    writeFileSync(file, text);
    console.log(`wrote ${file}`);
  }
}

await main();
