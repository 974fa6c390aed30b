// Verification of semantic hits against the tenant's error bound (`cache.semantic_error_bound`):
// a would-be hit outside its step's proven range, or sampled inside it, is not served; the call
// goes upstream as a miss would, and once its answer is in, that answer is compared with the
// cached one (agreement of normalized answers) and the step's verified record grows. So a
// verification costs no call beyond the one a miss makes: its price is a hit not served.
import type { SemanticHit, SemanticQuery } from '../cache/semantic-cache.ts';
import type { PipelineDeps } from './deps.ts';
import { answerOf } from './complete.ts';
import type { CallContext } from './context.ts';

/** Token-set overlap at or above which two normalized answers agree. */
export const AGREEMENT = 0.8;

/** Lower case, NFKC, letters and digits only, one space between words. */
export function normalizeAnswer(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Whether two answers say the same: equal once normalized, or sharing ≥ AGREEMENT of their words (Jaccard). */
export function answersAgree(cached: string, fresh: string): boolean {
  const a = normalizeAnswer(cached);
  const b = normalizeAnswer(fresh);
  if (a === b) return true;
  if (!a || !b) return false;
  const sa = new Set(a.split(' '));
  const sb = new Set(b.split(' '));
  let shared = 0;
  for (const w of sa) if (sb.has(w)) shared++;
  return shared / (sa.size + sb.size - shared) >= AGREEMENT;
}

/** A hit held back for verification: compared with the upstream answer once it is in. */
export interface PendingVerification {
  hit: SemanticHit;
  sampled: boolean;
}

/**
 * Whether a would-be hit is served under the tenant's bound; when it is not, the verification
 * to complete after the upstream answer. Null bound: no verification (the threshold alone).
 */
export function verifyOrServe(ctx: CallContext, s: PipelineDeps, q: SemanticQuery, hit: SemanticHit, bound: number | null | undefined): PendingVerification | null {
  if (bound === null || bound === undefined) return null;
  const floor = q.threshold ?? s.semanticCache.defaultThreshold;
  const d = s.semanticCache.verification.decide(q.accountId, q.step, bound, floor, hit.similarity);
  if (d.action === 'serve') {
    ctx.route?.reasons.push(`semantic cache: similarity ${hit.similarity.toFixed(3)} is in the step's verified range (from ${d.threshold.toFixed(4)}) at error bound ${bound}`);
    return null;
  }
  const why =
    d.action === 'verify' && d.why === 'sampled'
      ? 'a sampled check of the verified range'
      : Number.isFinite(d.threshold)
        ? `below the step's verified range (from ${d.threshold.toFixed(4)})`
        : 'the step has no verified range yet';
  ctx.route?.reasons.push(`semantic cache: a similar question was found (similarity ${hit.similarity.toFixed(3)}), answered upstream to verify it at error bound ${bound}: ${why}`);
  return { hit, sampled: d.action === 'verify' && d.why === 'sampled' };
}

/** Compares the upstream answer with the held-back hit's and records the verdict. */
export function completeVerification(s: PipelineDeps, q: SemanticQuery, pending: PendingVerification, freshText: string): boolean {
  const agreed = answersAgree(answerOf(pending.hit.answer.text).answer, answerOf(freshText).answer);
  s.semanticCache.verification.record(q.accountId, q.step, pending.hit.similarity, agreed, pending.sampled);
  return agreed;
}
