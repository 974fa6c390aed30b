// Learning by serving (routing settings `learning_mode: serve`): while a step is open, an
// unproven candidate serves a sampled share of its calls, so the client's outcome on that call
// is free evidence about it, and the call costs less than the baseline's while it teaches.
//
// Which candidate, and how often, is posterior (Thompson) sampling: each candidate's retention
// is drawn from its posterior (the catalog's or the tenant's prior, moved by the step's own
// evidence), and the draw says what the step would serve if it were the truth: the candidate
// alone where the draw holds the floor, else a mix of it and what serves now, at the mix's share.
// The candidate is drawn for the call with that chance, and the cheapest drawn serves, when it is
// cheaper than what serves now. A candidate the prior calls weak is tried, not written off; one
// the evidence proves weak is drawn less and less, down to the share a mix would give it.
//
// The quality-risk budget bounds those trials. The floor is a promise about every answer the
// step's users get, trials included: over the step's calls, the expected retention must stay at
// or above the floor with high probability. Each call served by the baseline (retention 1) or by
// a proven policy (its lower bound) earns its margin over the floor; the trials spend it, each
// by how far its candidate's posterior mean lies under the floor plus `RISK_Z` posterior standard
// deviations of the candidate's total (the trials of one candidate share one unknown retention,
// so their errors add up, not average out). Spend is re-priced with every decision: trials of a
// candidate later proven good give their budget back, those of one proven weak take more.
import type { PolicyStats } from './evidence.ts';
import { byPrecision, conflicts } from './estimates.ts';
import { normalCdf } from './exploration.ts';
import { policyKey, type Policy } from './policies.ts';

/** How many posterior standard deviations of the trials' total retention the budget keeps in hand (one-sided, about 95 %). */
export const RISK_Z = 1.64;
/** The spread of a candidate's retention before the step has evidence of it: a starting point, not a verdict. */
export const TRIAL_PRIOR_SD = 0.2;
/**
 * The budget is kept over the step's recent calls, not its whole history: margin earned and
 * trials served both fade by this factor per call (a window of about 300 calls), so a step that
 * earned a large margin long ago cannot spend it all at once on today's users.
 */
export const LEDGER_DECAY = 1 - 1 / 300;
/**
 * The budget aims this far over the floor on every step: it bounds the expected retention, and what
 * a few dozen users actually get scatters around it (on a step of 60 calls, trials aimed at the
 * floor itself left 1 run in 10 under it).
 */
export const SERVED_MARGIN = 0.005;
/**
 * And this much further once the step has served a proven policy (or a mix) at its lower bound: a
 * proof checked on every call errs now and then, and the cushion stays from then on. Before its
 * first proof a step serves the baseline, whose retention is exact (1).
 */
export const PROOF_MARGIN = 0.005;
/** The whole margin of a step that has served a proven policy. */
export const RISK_MARGIN = SERVED_MARGIN + PROOF_MARGIN;
/** Candidates on trial at once: the most promising by their chance to hold times what they would save, so evidence gathers instead of spreading thin. */
export const MAX_ON_TRIAL = 3;
/**
 * Trials a model on trial gets whatever its draws say (within the budget): a prior that calls it
 * weak, or a proxy biased against it, is tested by a few answers users actually got. A gate gets
 * none it is not drawn for: its start is its two models' (their evidence, else their strengths),
 * each of which gets its own, and a step has dozens of pairs. Five forced trials each spent the
 * budget, once it was priced right, on pairs with a model the step had found weak.
 */
export const MIN_TRIALS = 5;
/** No draw reads outside this range of retention. */
const MIN_RETENTION = 0;
const MAX_RETENTION = 1.5;

/** What the step knows of one candidate, for sampling it. */
export interface TrialCandidate {
  policy: Policy;
  /** The step's own evidence (shrunk toward the tenant's other steps where they have a prior). */
  stats: PolicyStats;
  /**
   * Where the candidate starts before evidence (the catalog's strengths, moved by the tenant's other steps' outcomes where
   * they have some: `pooled`); `overruled` once the step's own evidence has contradicted it (the ledger keeps that).
   */
  prior: { mean: number; sd: number; pooled?: boolean; overruled?: boolean };
  /** Expected cost per call as a share of the baseline's. */
  costShare: number;
  /** The clients' outcomes on its served calls against the baseline's (from the third on): the truth the other evidence stands in for; `n` of them. */
  outcomes?: { retention: number; se: number; n?: number } | undefined;
  /** Trials it has had on the step, ever (a model gets MIN_TRIALS whatever its draw). */
  tried?: number;
}

export interface Posterior {
  mean: number;
  sd: number;
  /** The step's evidence stands without the prior: it contradicts the prior now, or did before (`prior.overruled`). */
  overrules?: boolean;
}

const clamp = (x: number) => Math.min(MAX_RETENTION, Math.max(MIN_RETENTION, x));

/**
 * The candidate's posterior retention: its prior and its evidence combined by precision; always in
 * range. Where its outcomes speak and the step's other evidence (the judge's grades, agreement)
 * disagrees with them beyond both errors, the outcomes stand alone with the prior. Where the
 * evidence contradicts the prior beyond both errors (`CONFLICT_Z`), it stands alone: a catalog
 * strength that calls a candidate weaker than the step finds it would otherwise outweigh a few
 * dozen outcomes, and its trials would stay priced as a weak model's. It stands alone from then
 * on (`prior.overruled`): whether a leaderboard's strength speaks for this step does not change
 * with the next outcome, and a test of it repeated on every call took the prior back whenever
 * the evidence wobbled toward it. The posterior then fell from 1.4 to 0.87 ± 0.16 at once,
 * the trials already served were priced as a weak model's, the budget was spent, and without
 * further trials no further outcome could overrule the prior again (`better-cheaper`: a
 * candidate a third better than the baseline, unproven after 800 calls).
 */
export function trialPosterior(c: TrialCandidate): Posterior {
  const parts: { r: number; se: number }[] = [];
  const outcomes = c.outcomes ? { r: c.outcomes.retention, se: Math.max(c.outcomes.se, 1e-3) } : null;
  const stats = c.stats.n > 0 && Number.isFinite(c.stats.ucb - c.stats.lcb) ? { r: c.stats.retention, se: Math.max((c.stats.ucb - c.stats.lcb) / 2, 1e-3) } : null;
  const biased = stats !== null && outcomes !== null && conflicts(stats, outcomes);
  if (stats && !biased) parts.push(stats);
  // outcomes the statistics already hold are not counted twice
  if (outcomes && (biased || !c.stats.byOutcome)) parts.push(outcomes);
  const prior = { r: c.prior.mean, se: c.prior.sd };
  const evidence = parts.length > 0 ? byPrecision(parts) : null;
  // a prior the step's own evidence contradicts beyond both errors is a wrong starting point, not a verdict: the evidence stands alone
  const wrongPrior = evidence !== null && (c.prior.overruled === true || conflicts(evidence, prior));
  const post = wrongPrior ? evidence : byPrecision([prior, ...parts]);
  return { mean: clamp(post.r), sd: post.se, ...(wrongPrior ? { overrules: true } : {}) };
}

/**
 * The candidate as its step has judged its prior: overruled where the ledger says the step's
 * evidence once contradicted it, and noted in the ledger where the evidence contradicts it now
 * (`trialPosterior`: from then on the evidence stands alone).
 */
export function judgePrior(ledger: RiskLedger, key: string, c: TrialCandidate): TrialCandidate {
  if (ledger.overruled.has(key)) return c.prior.overruled ? c : { ...c, prior: { ...c.prior, overruled: true } };
  if (trialPosterior(c).overrules) ledger.overruled.add(key);
  return c;
}

/** The step's quality-risk ledger: the margin served calls earned, and the trials by policy (both fading, LEDGER_DECAY). */
export interface RiskLedger {
  /** Σ over recent calls not served as trials of (their retention − the floor − the margin, `riskMargin`): the baseline's is 1, a proven policy's its lower bound. */
  earned: number;
  /** Whether the step has ever served a proven policy or a mix (at an estimated retention): then the budget keeps PROOF_MARGIN too. */
  proven: boolean;
  /** Recent trials served, by policy key. */
  trials: Map<string, number>;
  /** Trials ever served, by policy key (for the step view). */
  total: Map<string, number>;
  /** Candidates whose prior the step's own evidence contradicted, by policy key: they stand on their evidence from then on. */
  overruled: Set<string>;
}

export function newLedger(): RiskLedger {
  return { earned: 0, proven: false, trials: new Map(), total: new Map(), overruled: new Set() };
}

/** One call passes: what the ledger holds fades by LEDGER_DECAY. */
export function fade(ledger: RiskLedger): void {
  ledger.earned *= LEDGER_DECAY;
  // a policy's trials that have faded to nothing leave the ledger (it is read on every decision)
  for (const [k, n] of ledger.trials) {
    if (n * LEDGER_DECAY < 1e-3) ledger.trials.delete(k);
    else ledger.trials.set(k, n * LEDGER_DECAY);
  }
}

/** Notes a call served without a trial, at retention `r` (`estimated`: a proven policy's or a mix's bound, not the baseline's). */
export function earn(ledger: RiskLedger, r: number, floor: number, estimated: boolean): void {
  fade(ledger);
  if (estimated) ledger.proven = true;
  ledger.earned += Math.max(0, r - floor - riskMargin(ledger));
}

/** How far over the floor the budget aims: SERVED_MARGIN, and PROOF_MARGIN too once the step has served a proven policy. */
export function riskMargin(ledger: RiskLedger): number {
  return ledger.proven ? RISK_MARGIN : SERVED_MARGIN;
}

/** Notes a trial of `key`. */
export function spend(ledger: RiskLedger, key: string): void {
  fade(ledger);
  ledger.trials.set(key, (ledger.trials.get(key) ?? 0) + 1);
  ledger.total.set(key, (ledger.total.get(key) ?? 0) + 1);
}

/**
 * What the trials spend of the budget, at today's posteriors (with `extra` more trials of one
 * policy): their expected shortfall from the floor plus RISK_Z standard deviations of their total.
 */
export function riskSpent(ledger: RiskLedger, floor: number, posteriorOf: (key: string) => Posterior | undefined, extra?: { policy: string; post: Posterior }): number {
  let shortfall = 0;
  let variance = 0;
  const counts = new Map(ledger.trials);
  const margin = riskMargin(ledger);
  if (extra) counts.set(extra.policy, (counts.get(extra.policy) ?? 0) + 1);
  for (const [policy, n] of counts) {
    const post = extra?.policy === policy ? extra.post : posteriorOf(policy);
    // a candidate no longer weighed (its model left the catalog) is priced as the worst it could have been
    const p = post ?? { mean: 0, sd: 0 };
    shortfall += n * (floor + margin - p.mean);
    variance += (n * p.sd) ** 2;
  }
  return shortfall + RISK_Z * Math.sqrt(variance);
}

/** The chance a posterior puts on holding the floor. */
export function holdChance(post: Posterior, floor: number): number {
  return 1 - normalCdf((floor - post.mean) / post.sd);
}

/** A standard normal draw from two uniforms (Box–Muller). */
function normal(u1: number, u2: number): number {
  return Math.sqrt(-2 * Math.log(Math.max(u1, 1e-12))) * Math.cos(2 * Math.PI * u2);
}

/** A small seeded generator (mulberry32): the decision's one draw seeds every further one. */
export function drawsFrom(seed: number): () => number {
  let a = Math.floor(seed * 0x1_0000_0000) >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface TrialChoice {
  candidate: TrialCandidate;
  post: Posterior;
  /** What drew it: a draw that holds the floor alone, one under it at the share a mix would serve it (`mix`), or one of its first trials. */
  drawn: { as: 'alone' } | { as: 'mix'; share: number } | { as: 'first' };
  /** The budget: the margin earned so far; and what the trials spend of it with this one. */
  budget: number;
  spent: number;
}

export interface TrialAsk {
  candidates: TrialCandidate[];
  /** What serves this call otherwise, as a share of the baseline's cost: a trial must be cheaper. */
  servingShare: number;
  /**
   * What serves this call otherwise, its retention as the budget counts it (the baseline's 1, a proven
   * policy's bound): a draw under the floor then tries a candidate at the share a mix with it would
   * serve (`drawnShare`). Omitted where a trial's evidence is paid for (no outcomes come, its answer is
   * graded beside a side answer of the baseline): a draw tries a candidate only where it holds alone.
   */
  servingRetention?: number;
  floor: number;
  ledger: RiskLedger;
  /** A uniform draw in [0, 1) that seeds the posterior draws. */
  draw: number;
  /** The posterior of a policy the ledger holds trials of that is not among `candidates` (known by now, or dearer than what serves). */
  posteriorOf?: (key: string) => Posterior | undefined;
}

/**
 * The share of calls a candidate whose retention were `draw` would serve beside what serves now
 * (retention `serving`) with the two together at the floor and the budget's margin: 1 where the
 * draw holds the floor alone, else the mix's share (0 where what serves has no margin to give).
 */
export function drawnShare(draw: number, serving: number, floor: number, margin: number): number {
  if (draw >= floor) return 1;
  if (draw >= serving) return 0;
  return Math.min(1, Math.max(0, (serving - floor - margin) / (serving - draw)));
}

/**
 * The trial for this call, or null: posterior sampling over what the step can serve, a candidate
 * alone or in a mix with what serves now. Each candidate's draw says the share of calls it would
 * serve if its retention were the draw (`drawnShare`: all of them where the draw holds the floor,
 * a mix's share where it does not), and it is drawn for this call with that chance; the cheapest
 * drawn serves, when it is cheaper than what serves now and the risk budget has room for one more
 * trial of it. A candidate under the floor that a mix could still use is tried as often as that mix
 * would serve it, not only on the rare draw that puts it over the floor alone.
 */
export function chooseTrial(ask: TrialAsk): TrialChoice | null {
  const next = drawsFrom(ask.draw);
  const posts = new Map(ask.candidates.map((c) => [policyKey(c.policy), { c, post: trialPosterior(c) }]));
  const worth = (c: TrialCandidate) => {
    const { post } = posts.get(policyKey(c.policy))!;
    return holdChance(post, ask.floor) * (ask.servingShare - c.costShare);
  };
  const serving = ask.servingRetention;
  const margin = riskMargin(ask.ledger);
  // each of the three weighed draws once; what drew it (its draw alone, a mix's share, a first trial) or null
  const whyDrawn = (c: TrialCandidate): TrialChoice['drawn'] | null => {
    const { post } = posts.get(policyKey(c.policy))!;
    const draw = clamp(post.mean + post.sd * normal(next(), next()));
    const share = serving === undefined ? Number(draw >= ask.floor) : drawnShare(draw, serving, ask.floor, margin);
    if (next() < share) return share >= 1 ? { as: 'alone' } : { as: 'mix', share };
    return c.policy.kind === 'model' && (c.tried ?? 0) < MIN_TRIALS ? { as: 'first' } : null;
  };
  const holding = ask.candidates
    .filter((c) => c.costShare < ask.servingShare)
    .sort((a, b) => worth(b) - worth(a))
    .slice(0, MAX_ON_TRIAL)
    .map((c) => ({ c, drawn: whyDrawn(c) }))
    .filter((x): x is { c: TrialCandidate; drawn: TrialChoice['drawn'] } => x.drawn !== null)
    .sort((a, b) => a.c.costShare - b.c.costShare);
  const pick = holding[0];
  if (!pick) return null;
  const name = policyKey(pick.c.policy);
  const post = posts.get(name)!.post;
  const spent = riskSpent(ask.ledger, ask.floor, (k) => posts.get(k)?.post ?? ask.posteriorOf?.(k), { policy: name, post });
  if (spent > ask.ledger.earned) return null;
  return { candidate: pick.c, post, drawn: pick.drawn, budget: ask.ledger.earned, spent };
}

/** The share of the budget the trials use, for the step view and the call's reasons (0 before any margin is earned). */
export function budgetUsed(ledger: RiskLedger, floor: number, posteriorOf: (key: string) => Posterior | undefined): number {
  if (ledger.trials.size === 0) return 0;
  const spent = riskSpent(ledger, floor, posteriorOf);
  return ledger.earned > 0 ? Math.max(0, spent) / ledger.earned : 1;
}
