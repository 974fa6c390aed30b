// The verified mode of the cache bench (`--verify-bound B`): the pairs, in order, go through one
// neighbourhood's VerifiedThreshold as one step's lookups would. A would-be hit (guards passed,
// similarity at or above the learner's floor) is served only where the verified record supports
// the bound; otherwise, and for a sampled share of servable ones, the model answers and its answer
// is compared with the cached one. The bench has no model that answers Quora questions, so the
// comparison's stand-in is the pair's label (duplicate = the answers agree): the labels are noisy,
// so this is stricter than answer agreement would be.
import { VerifiedThreshold } from '../../apps/api/src/cache/semantic/verified-threshold.ts';

export interface VerifyPair {
  a: string;
  b: string;
  duplicate: boolean;
  similarity: number;
  refusedBy: string | undefined;
}

export interface VerifyResult {
  bound: number;
  sample_rate: number;
  lookups: number;
  hits: number;
  true_hits: number;
  false_hits: number;
  precision: number;
  recall: number;
  /** Model calls made to verify would-be hits, per 1,000 lookups (unproven + sampled). */
  verify_calls_per_1000: number;
  verify_unproven: number;
  verify_sampled: number;
  /** The cache's own report: verified error of served-range hits (sampled checks). */
  reported_error: number | null;
  reported_checked: number;
  final_threshold: number | null;
  false_hit_pairs: { a: string; b: string; similarity: number }[];
}

/** mulberry32: a seeded draw so a run can be repeated. */
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

export function runVerified(pairs: VerifyPair[], bound: number, sampleRate: number, seed = 1): VerifyResult {
  const learner = new VerifiedThreshold({ bound, sampleRate });
  const draw = rng(seed);
  let tp = 0;
  let fp = 0;
  let dups = 0;
  let unproven = 0;
  let sampled = 0;
  const falseHits: VerifyResult['false_hit_pairs'] = [];
  for (const p of pairs) {
    if (p.duplicate) dups++;
    if (p.refusedBy) continue; // the guards stay: a refused pair is an ordinary miss
    const d = learner.decide(p.similarity, draw());
    if (d.action === 'miss') continue;
    if (d.action === 'verify') {
      if (d.why === 'sampled') sampled++;
      else unproven++;
      learner.record(p.similarity, p.duplicate, d.why === 'sampled');
      continue;
    }
    if (p.duplicate) tp++;
    else {
      fp++;
      falseHits.push({ a: p.a, b: p.b, similarity: p.similarity });
    }
  }
  const st = learner.stats();
  return {
    bound,
    sample_rate: sampleRate,
    lookups: pairs.length,
    hits: tp + fp,
    true_hits: tp,
    false_hits: fp,
    precision: tp + fp ? tp / (tp + fp) : 1,
    recall: dups ? tp / dups : 0,
    verify_calls_per_1000: ((unproven + sampled) / pairs.length) * 1000,
    verify_unproven: unproven,
    verify_sampled: sampled,
    reported_error: st.observed_error,
    reported_checked: st.served_checked,
    final_threshold: st.threshold,
    false_hit_pairs: falseHits.sort((x, y) => y.similarity - x.similarity),
  };
}
