// The quality bar is a mean: the share of the baseline's quality a step keeps over its
// calls. A policy under the bar can still serve part of a step's calls if the rest go to
// one that is above it, so that the mix as a whole holds. Of all the ways to spend the
// bar's slack, the cheapest mix of policies has at most two (a linear program with two
// constraints: the shares add up to one, the mean retention holds the floor), one under
// the bar and one above it.
//
// Each side is taken at its own cautious bound (the bound a single policy must clear to
// serve), so the mix holds the floor with at least the confidence a single policy would.
import type { PolicyStats } from './evidence.ts';
import { policyKey, type Policy } from './policies.ts';

/** A policy with its evidence, as the optimizer weighs it. */
export interface Weighed {
  policy: Policy;
  stats: PolicyStats;
}

export interface Mix {
  /** The cheaper policy, under the bar on its own, and the share of calls it serves. */
  under: Weighed;
  share: number;
  /** The policy that serves the other calls: one that holds, or the baseline (null). */
  over: Weighed | null;
  /** Expected cost per call of the mix (micro-dollars). */
  costMicros: number;
  /** The mix's cautious retention bound (the floor plus MIX_MARGIN). */
  bound: number;
}

/**
 * A mix is aimed this far over the floor: it sits on the bar by construction, and a step's
 * measured retention over a few dozen calls scatters around what it aims at.
 */
export const MIX_MARGIN = 0.01;

/** A mix must give the cheaper policy at least this share of calls to be worth the name. */
export const MIN_MIX_SHARE = 0.1;

/**
 * A policy's cautious bound: its retention less `z` standard errors (PolicyStats' bounds
 * are at `zStats`).
 */
export function holdBound(st: PolicyStats, z: number, zStats: number): number {
  return st.retention - z * ((st.ucb - st.lcb) / (2 * zStats));
}

/**
 * The cheapest mix of a policy under the bar with one that holds it (or with the baseline,
 * whose retention of itself is 1 exactly), or null when none is cheaper than `beat`.
 * `under`: candidates with enough evidence to serve, whatever their bound.
 */
export function cheapestMix(under: Weighed[], over: Weighed[], barFloor: number, baselineMicros: number, beat: number, bound: (st: PolicyStats) => number): Mix | null {
  const floor = barFloor + MIX_MARGIN;
  let best: Mix | null = null;
  const partners: (Weighed | null)[] = [null, ...over];
  for (const a of under) {
    const ha = bound(a.stats);
    const ca = a.stats.costMicros;
    if (!Number.isFinite(ca) || !(ha < floor) || ha <= 0) continue;
    for (const b of partners) {
      const hb = b ? bound(b.stats) : 1;
      const cb = b ? b.stats.costMicros : baselineMicros;
      if (!(hb >= floor) || !(ca < cb) || (b && policyKey(b.policy) === policyKey(a.policy))) continue;
      const share = Math.min(1, (hb - floor) / (hb - ha));
      if (share < MIN_MIX_SHARE) continue;
      const cost = share * ca + (1 - share) * cb;
      if (cost < (best?.costMicros ?? beat)) best = { under: a, share, over: b, costMicros: cost, bound: share * ha + (1 - share) * hb };
    }
  }
  return best;
}

/** The mix's key, for the step's view and its `chosen` (never parsed back into a policy). */
export function mixKey(m: Mix, baseline: string): string {
  return `mix:${policyKey(m.under.policy)}@${m.share.toFixed(2)}|${m.over ? policyKey(m.over.policy) : `model:${baseline}`}`;
}

/** The policy keys of a mix's two sides, read back from its key (`mixKey`); null for a key that is not a mix's. */
export function mixSides(key: string): [under: string, over: string] | null {
  if (!key.startsWith('mix:')) return null;
  const [under, over] = key.slice('mix:'.length).split('|');
  return under !== undefined && over !== undefined ? [under.replace(/@[\d.]+$/, ''), over] : null;
}

/**
 * Which side serves this call: the cheaper one while its share of the mix's calls so far
 * is under its due share (an even spread, no random streaks).
 */
export function servesUnder(counts: { under: number; total: number }, share: number): boolean {
  return counts.under < share * (counts.total + 1);
}
