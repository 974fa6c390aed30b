// Exploration as an investment. A step pays for evidence about a cheaper policy only
// while what that policy is expected to save over the step's expected remaining
// traffic, times the chance it holds the bar, exceeds what proving it costs; and never
// beyond a share of the step's own baseline spend so far. Every call says why it
// explored or why it did not.

/** A candidate policy as exploration sees it: what it would save, how sure we are, what a probe of it costs. */
export interface Prospect {
  key: string;
  /** Models one probe of it runs (one for a model or verify, two for a gate). */
  models: string[];
  /** Its evidence: samples, retention estimate and its standard error (a prior's, with no samples). */
  n: number;
  retention: number;
  se: number;
  /** Expected cost per served call, as a share of the baseline's. */
  costShare: number;
  /** What answering one probe costs, as a share of a baseline call (its models' answers). */
  probeShare: number;
  /** Judge grades one probe is expected to need (answers that disagree with the served one get graded). */
  gradesPerProbe: number;
}

export interface Traffic {
  /** Routed calls the step has seen. */
  calls: number;
  /** What those calls would have cost on the baseline (micro-dollars). */
  baselineMicros: number;
  /** What exploring on the step has cost so far. */
  spentMicros: number;
  /** What those calls cost in all (served answers, escalations, exploration). */
  actualMicros: number;
}

export interface ExploreInput {
  traffic: Traffic;
  floor: number;
  /** Cost share of what serves the step now (1 for the baseline). */
  servingShare: number;
  /** What one judge grade costs, as a share of a baseline call. */
  gradeShare: number;
  /** Largest share of the step's baseline spend exploration may take (default 0.1). */
  budgetShare: number;
  /** A start-up allowance on top of the share, in baseline calls. */
  allowanceCalls: number;
  /** Set when a tenant-wide budget stops exploring (the reason). */
  blocked?: string;
  prospects: Prospect[];
  /** A uniform draw in [0, 1) for sampling. */
  draw: number;
}

export interface ExplorePlan {
  probe: Prospect | null;
  /** Why this call explored or did not, for the call's reasons. */
  reason: string;
  /** The best prospect's payback (expected saving over evidence cost); 0 when none. */
  payback: number;
  /** Share of calls probed at that payback. */
  rate: number;
}

/** Standard normal CDF (Abramowitz–Stegun 7.1.26, |error| < 1.5e-7). */
export function normalCdf(x: number): number {
  const t = 1 / (1 + 0.3275911 * (Math.abs(x) / Math.SQRT2));
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-(x * x) / 2);
  return x >= 0 ? (1 + y) / 2 : (1 - y) / 2;
}

/**
 * Confidence a policy needs to start serving: a one-sided z of 1.65 (95 %). A step re-checks
 * its candidates on every call, so a looser bound is crossed by luck sooner or later; once
 * serving, a policy keeps serving while its z = 1 bound holds (hysteresis, no flapping).
 */
export const HOLD_Z = 1.3;
/** A probe's retention spread when the evidence has not measured it yet. */
const DEFAULT_SPREAD = 0.4;
/** Samples a policy needs before it may serve, whatever its prior says. */
export const MIN_EVIDENCE = 40;
/**
 * The payback an exploration must promise. Asking for 2 (the remaining traffic it counts on is a
 * median guess) only moved exploring later on steps of a few hundred calls, where it lost more
 * (−9 % of test spend on such a set, against −5.7 % at 1): the net-loss stop is what bounds a loss.
 */
export const MIN_PAYBACK = 1;
/** The most a step may cost over its baseline so far, exploration included, before exploring waits for savings. */
export const MAX_NET_LOSS = 0.03;
/** How sharply the probed candidate is drawn toward the best payback. */
const FOCUS = 4;
/** Most probes an investment is planned for; a candidate this close to the bar is not worth proving. */
const MAX_PLANNED = 400;

/**
 * Probes still needed before the candidate's lower bound clears the floor (or its upper
 * bound falls under it): from the gap its estimate keeps to the floor and the spread
 * of one probe.
 */
export function probesNeeded(p: Prospect, floor: number): number {
  const spread = p.n >= 10 ? p.se * Math.sqrt(p.n) : DEFAULT_SPREAD;
  // with an estimate on the floor, the gap its own uncertainty expects (the mean |N(0, se)| is 0.8 se)
  const gap = Math.max(Math.abs(p.retention - floor), 0.8 * p.se, 0.01);
  const total = Math.ceil(((HOLD_Z * spread) / gap) ** 2);
  return Math.min(MAX_PLANNED, Math.max(MIN_EVIDENCE - p.n, total - p.n, 1));
}

/**
 * Expected remaining traffic: as many calls again as the step has seen (the step's own
 * rate over its own age; a step seen once is not assumed to run for a year).
 */
export function remainingCalls(t: Traffic): number {
  return t.calls;
}

/** The payback of proving `p`: expected saving over the remaining traffic once proven, over the cost of proving it. */
export function payback(p: Prospect, input: ExploreInput): number {
  const gain = input.servingShare - p.costShare;
  if (gain <= 0) return 0;
  const holds = normalCdf((p.retention - input.floor) / Math.max(p.se, 1e-3));
  const need = probesNeeded(p, input.floor);
  const after = remainingCalls(input.traffic) - need;
  if (after <= 0) return 0;
  const cost = need * (p.probeShare + p.gradesPerProbe * input.gradeShare);
  return (holds * gain * after) / Math.max(cost, 1e-9);
}

const pct = (x: number) => `${Math.round(x * 100)}%`;
const times = (x: number) => `${x < 10 ? x.toFixed(1) : Math.round(x)}×`;

export function planExploration(input: ExploreInput): ExplorePlan {
  const t = input.traffic;
  let bestPayback = 0;
  const viable: { p: Prospect; v: number }[] = [];
  for (const p of input.prospects) {
    const v = payback(p, input);
    bestPayback = Math.max(bestPayback, v);
    if (v >= MIN_PAYBACK) viable.push({ p, v });
  }
  if (viable.length === 0) {
    const why = input.prospects.length === 0 ? 'no cheaper policy is open' : `payback ${times(bestPayback)} < ${MIN_PAYBACK}`;
    return { probe: null, reason: `no probe: ${why}`, payback: bestPayback, rate: 0 };
  }
  const perCall = t.calls > 0 ? t.baselineMicros / t.calls : 0;
  // a share of 0 turns exploring off, allowance included
  const allowed = input.budgetShare > 0 ? input.budgetShare * t.baselineMicros + input.allowanceCalls * perCall : 0;
  if (input.blocked) return { probe: null, reason: `no probe: ${input.blocked}`, payback: bestPayback, rate: 0 };
  if (t.spentMicros >= allowed) return { probe: null, reason: `no probe: step budget ${pct(input.budgetShare)} used`, payback: bestPayback, rate: 0 };
  // whatever the budget allows, the step as a whole never costs more than its baseline plus a margin:
  // exploring beyond what its own savings have paid back waits until they have
  if (t.actualMicros - t.baselineMicros >= MAX_NET_LOSS * t.baselineMicros) {
    return { probe: null, reason: `no probe: the step already costs ${pct(t.actualMicros / Math.max(1, t.baselineMicros) - 1)} over its baseline`, payback: bestPayback, rate: 0 };
  }
  // a sure investment is made on every call; a marginal one on a share of calls
  const rate = Math.min(1, bestPayback - MIN_PAYBACK);
  if (input.draw >= rate) return { probe: null, reason: `no probe: sampled out at rate ${rate.toFixed(2)} (payback ${times(bestPayback)})`, payback: bestPayback, rate };
  // which candidate: drawn by payback to the fourth power, so evidence goes to the best while a
  // close second is still learned about (spread evenly, it would prove nothing in time)
  const weight = (v: number) => (v / bestPayback) ** FOCUS;
  const total = viable.reduce((a, x) => a + weight(x.v), 0);
  let pick = (((input.draw / Math.max(rate, 1e-9)) * 7_919) % 1) * total;
  const chosen = viable.find((x) => (pick -= weight(x.v)) < 0) ?? viable[viable.length - 1]!;
  return { probe: chosen.p, reason: `explored: probed ${chosen.p.key} (payback ${times(chosen.v)}, rate ${rate.toFixed(2)})`, payback: bestPayback, rate };
}
