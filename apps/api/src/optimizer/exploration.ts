// Exploration as an investment. A step pays for evidence about a cheaper policy only
// while what that policy is expected to save over the step's expected remaining
// traffic, times the chance it holds the bar, exceeds what proving it costs; and never
// beyond a share of the step's own baseline spend so far. Every call says why it
// explored or why it did not.
import { MIX_MARGIN } from './mix.ts';

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
  /** What exploring on the step has cost so far: probes, their grades, judge measures, abandoned probes too. */
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
  /** Whether the step's last decision had an investment under way (it goes on at a lower payback). */
  investing?: boolean;
  /** The shares of calls a candidate may be proven to serve (`MIX_LEVELS`; [1] where mixes may not serve). */
  levels?: readonly number[];
  /**
   * Discovery mode (the agent's flag on, the call asks, credit left): the step searches actively,
   * probing its most promising open candidate on every call without waiting for the payback rule;
   * the discovery credit, not the step's budget, pays.
   */
  discover?: boolean;
}

export interface ExplorePlan {
  probe: Prospect | null;
  /** Why this call explored or did not, for the call's reasons. */
  reason: string;
  /** The best prospect's payback (expected saving over evidence cost); 0 when none. */
  payback: number;
  /** Share of calls probed at that payback. */
  rate: number;
  /** Whether an investment the budget can finish is under way (sampled-out calls included). */
  funded: boolean;
}

/** Standard normal CDF (Abramowitz–Stegun 7.1.26, |error| < 1.5e-7). */
export function normalCdf(x: number): number {
  const t = 1 / (1 + 0.3275911 * (Math.abs(x) / Math.SQRT2));
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-(x * x) / 2);
  return x >= 0 ? (1 + y) / 2 : (1 - y) / 2;
}

/**
 * Confidence a policy needs to start serving: its retention less 1.3 standard errors (about 90 %
 * one-sided), on at least MIN_EVIDENCE samples. A step re-checks its candidates on every call, so
 * a looser bound is crossed by luck sooner or later (z = 1 on 20 samples served a model of true
 * retention 0.88); once serving, a policy keeps serving while its z = 1 bound holds (hysteresis,
 * no flapping). docs/decisions.md, "Holds".
 */
export const HOLD_Z = 1.3;
/** A probe's retention spread when the evidence has not measured it yet. */
const DEFAULT_SPREAD = 0.4;
/** Samples a policy needs before it may serve, whatever its prior says. */
export const MIN_EVIDENCE = 40;
/**
 * The payback an exploration must promise to start: half as much again as its cost. The chance
 * that a candidate holds and the probes its proof takes are estimates, and an investment that only
 * breaks even on them loses as often as not: on steps of a few hundred calls such investments began
 * late in the step's life and lost 4 % of its last calls' spend. Twice its cost kept those steps
 * from ever saving, and starved judge-paid proofs where no outcomes come.
 */
export const MIN_PAYBACK = 1.5;
/**
 * The payback an investment under way must keep: once part of a proof is paid for, what is left
 * of it is worth finishing while it still pays back at all (abandoned half-way, it is all cost).
 */
export const KEEP_PAYBACK = 1;

/** The payback a step's next probe needs: MIN_PAYBACK to start an investment, KEEP_PAYBACK to go on with one. */
export function paybackBar(investing: boolean | undefined): number {
  return investing ? KEEP_PAYBACK : MIN_PAYBACK;
}
/** The most a step may cost over its baseline so far, exploration included, before exploring waits for savings. */
export const MAX_NET_LOSS = 0.03;
/** How sharply the probed candidate is drawn toward the best payback. */
const FOCUS = 4;

/** Standard normal density. */
const normalPdf = (x: number) => Math.exp(-(x * x) / 2) / Math.sqrt(2 * Math.PI);

/** Probes until the bound of an estimate `gap` away from the floor clears it, given the spread of one probe. */
function probesFor(p: Prospect, gap: number): number {
  const spread = p.n >= 10 ? p.se * Math.sqrt(p.n) : DEFAULT_SPREAD;
  const total = Math.ceil(((HOLD_Z * spread) / Math.max(gap, 0.01)) ** 2);
  // never capped: a cap priced a candidate sitting on the bar as if 400 more probes would settle it,
  // so it was probed through the whole life of the step (8 % of the test phase's spend on one model)
  return Math.max(MIN_EVIDENCE - p.n, total - p.n, 1);
}

/**
 * Probes still needed to decide on the candidate, in the case that it holds (its lower bound
 * clears the floor) and in the case that it does not (its upper bound falls under it). Each case
 * is judged at the retention the estimate expects given that case (the mean of its normal
 * truncated at the floor): a candidate whose estimate sits on the floor is not assumed to sit
 * there exactly, which would take forever to prove either way.
 */
export function probesByCase(p: Prospect, floor: number): { holds: number; fails: number; pHolds: number } {
  const se = Math.max(p.se, 1e-3);
  const a = (floor - p.retention) / se;
  const pHolds = 1 - normalCdf(a);
  const above = pHolds > 1e-9 ? p.retention + (se * normalPdf(a)) / pHolds - floor : 0.8 * se;
  const below = pHolds < 1 - 1e-9 ? floor - (p.retention - (se * normalPdf(a)) / (1 - pHolds)) : 0.8 * se;
  return { holds: probesFor(p, above), fails: probesFor(p, below), pHolds };
}

/** Probes the decision is expected to take: each case's probes, weighted by its chance. */
function expectedProbes(c: { holds: number; fails: number; pHolds: number }): number {
  return c.pHolds * c.holds + (1 - c.pHolds) * c.fails;
}

/**
 * The remaining traffic an investment may count on: half the calls the step has seen. Knowing
 * only a step's age, its remaining life exceeds k times its age with probability 1 / (1 + k)
 * (Gott's rule: nothing says where in its life we see it), so half is what it has left two times
 * in three. The median (as many calls again) let steps of a few hundred calls start proofs that
 * their last calls never paid back; a third (three times in four) starved judge-paid proofs.
 */
export const SURE_REMAINING = 1 / 2;

export function remainingCalls(t: Traffic): number {
  return t.calls * SURE_REMAINING;
}

/**
 * The shares of calls a candidate may be proven to serve: alone (1), or mixed with the
 * baseline on part of the calls (the bar is a mean: a policy of retention r can serve a
 * share (1 − floor) / (1 − r) of them). A candidate just under the bar is worth proving at a
 * lower level, where its proof is short; one far over it, alone.
 */
export const MIX_LEVELS = [1, 0.6, 0.35];

/** The retention a candidate must be shown to hold to serve `share` of the calls beside the baseline (a mix aims MIX_MARGIN over the floor). */
export function levelFloor(floor: number, share: number): number {
  return share >= 1 ? floor : 1 - (1 - floor - MIX_MARGIN) / share;
}

/** A candidate's best level: the share it would serve, the bar it must clear for it, and the payback. */
export interface Level {
  share: number;
  floor: number;
  payback: number;
}

/** The payback of proving `p` at one level: expected saving over the remaining traffic once proven, over the cost of proving it. */
function levelPayback(p: Prospect, input: ExploreInput, share: number, floor: number): number {
  // serving `share` of the calls, the baseline the rest: against what serves now
  const gain = input.servingShare - (share * p.costShare + (1 - share));
  if (gain <= 0) return 0;
  const c = probesByCase(p, floor);
  // a candidate that holds serves once proven; either way the decision costs its expected probes
  const after = remainingCalls(input.traffic) - c.holds;
  if (after <= 0) return 0;
  const cost = expectedProbes(c) * (p.probeShare + p.gradesPerProbe * input.gradeShare);
  return (c.pHolds * gain * after) / Math.max(cost, 1e-9);
}

/** The level at which proving `p` pays back best. */
export function bestLevel(p: Prospect, input: ExploreInput): Level {
  let best: Level = { share: 1, floor: input.floor, payback: 0 };
  for (const share of input.levels ?? MIX_LEVELS) {
    const floor = levelFloor(input.floor, share);
    const v = levelPayback(p, input, share, floor);
    if (v > best.payback) best = { share, floor, payback: v };
  }
  return best;
}

/** The payback of proving `p` at its best level. */
export function payback(p: Prospect, input: ExploreInput): number {
  return bestLevel(p, input).payback;
}

const pct = (x: number) => `${Math.round(x * 100)}%`;
const times = (x: number) => `${x < 10 ? x.toFixed(1) : Math.round(x)}×`;
const usd = (micros: number) => (micros / 1e6).toFixed(micros < 10_000 ? 4 : 2);

/** The step's baseline cost of one call so far (micro-dollars). */
const perCall = (t: Traffic) => (t.calls > 0 ? t.baselineMicros / t.calls : 0);

/** What proving `p` still costs, in micro-dollars, should it hold (the longer case that pays): answers and grades. */
function provingCost(p: Prospect, input: ExploreInput, floor: number): number {
  return probesByCase(p, floor).holds * (p.probeShare + p.gradesPerProbe * input.gradeShare) * perCall(input.traffic);
}

/** What is left of the step's budget share, with the start-up allowance; a share of 0 turns exploring off, allowance included. */
function budgetLeft(input: Pick<ExploreInput, 'traffic' | 'budgetShare' | 'allowanceCalls'>): number {
  const t = input.traffic;
  return input.budgetShare > 0 ? input.budgetShare * t.baselineMicros + input.allowanceCalls * perCall(t) - t.spentMicros : 0;
}

/** What the step may still cost over its baseline, exploration included, before it reaches MAX_NET_LOSS. */
function lossLeft(t: Traffic): number {
  return MAX_NET_LOSS * t.baselineMicros - (t.actualMicros - t.baselineMicros);
}

/**
 * What the step may still spend on learning now, in micro-dollars: the least of its budget share
 * (with the start-up allowance) and its net-loss margin; 0 when a tenant-wide budget blocks it.
 * Probes are planned within it, and so is the grading of trials where no outcomes come.
 */
export function learningRoom(input: Pick<ExploreInput, 'traffic' | 'budgetShare' | 'allowanceCalls' | 'blocked'>): number {
  if (input.blocked) return 0;
  return Math.max(0, Math.min(budgetLeft(input), lossLeft(input.traffic)));
}

/**
 * Exploration may take this share of a step's baseline spend so far, plus a start-up allowance of this many baseline calls
 * (the tenant's `exploration.step_share` where set). Where no outcomes come every piece of evidence is paid for (probes,
 * graded trials, confirmations), and a tenth of the step's spend ran out long before a cheaper policy was proven: the
 * routing bench's `--outcome-rate 0` saved 0.076 of the whole traffic at 0.1 and 0.156 at 0.2 (24 runs each), no step
 * under 0.93 (two at 0.1).
 * Where outcomes come, trials teach for free and the share binds less (the full set read the same at both, over 24 runs);
 * `MAX_NET_LOSS` still keeps a step within 3 % of its baseline whatever the share allows. docs/decisions.md, round 18.
 */
export const DEFAULT_BUDGET_SHARE = 0.2;
/** The start-up allowance: baseline calls' worth of learning a step may spend before its share has grown. */
export const DEFAULT_ALLOWANCE_CALLS = 2;

/** What a candidate must promise per call (its chance to hold times its saving, as a share of a baseline call) for discovery to probe it. */
const MIN_PROMISE = 0.005;

export function planExploration(input: ExploreInput): ExplorePlan {
  const t = input.traffic;
  const bar = paybackBar(input.investing);
  let bestPayback = 0;
  const paying: { p: Prospect; v: number; floor: number; share: number }[] = [];
  for (const p of input.prospects) {
    const level = bestLevel(p, input);
    bestPayback = Math.max(bestPayback, level.payback);
    if (level.payback >= bar) paying.push({ p, v: level.payback, floor: level.floor, share: level.share });
  }
  const none = (why: string, rate = 0): ExplorePlan => ({ probe: null, reason: `no probe: ${why}`, payback: bestPayback, rate, funded: false });
  if (input.blocked) return none(input.blocked);
  // discovering: every call probes, the candidates in the order of what they promise per call (the chance they hold
  // times what they would save against what serves now), whatever traffic is left to pay it back; one that could not
  // save, or all but surely does not hold, is no longer in question
  const promise = (p: Prospect) => (1 - normalCdf((input.floor - p.retention) / Math.max(p.se, 1e-3))) * Math.max(0, input.servingShare - p.costShare);
  const promising = input.discover ? input.prospects.filter((p) => promise(p) > MIN_PROMISE) : [];
  if (promising.length > 0) {
    const best = promising.reduce((a, p) => (promise(p) > promise(a) ? p : a));
    return { probe: best, reason: `discovering: probed ${best.key} (it may hold and save ${pct(input.servingShare - best.costShare)} of the baseline's cost; discovery credit pays, no payback rule)`, payback: bestPayback, rate: 1, funded: true };
  }
  if (paying.length === 0) return none(input.prospects.length === 0 ? 'no cheaper policy is open' : `payback ${times(bestPayback)} < ${bar}`);
  if (budgetLeft(input) <= 0) return none(`step budget ${pct(input.budgetShare)} used`);
  // whatever the budget allows, the step as a whole never costs more than its baseline plus a margin:
  // exploring beyond what its own savings have paid back waits until they have
  if (lossLeft(t) <= 0) {
    return none(`the step already costs ${pct(t.actualMicros / Math.max(1, t.baselineMicros) - 1)} over its baseline`);
  }
  // an investment is started only when it can be finished: a proof abandoned half-way when the budget
  // runs out is all cost and no saving (on steps of a few hundred calls, that was every exploration)
  const left = Math.min(budgetLeft(input), lossLeft(t)); // what is left of the share, never past the net-loss margin
  const priced = paying.map((x) => ({ ...x, cost: provingCost(x.p, input, x.floor) }));
  const viable = priced.filter((x) => x.cost <= left);
  if (viable.length === 0) {
    const best = priced.reduce((a, x) => (x.v > a.v ? x : a));
    return none(`proving ${best.p.key} needs about ${usd(best.cost)} USD, more than the step's budget has left (${usd(Math.max(0, left))} USD)`);
  }
  const top = Math.max(...viable.map((x) => x.v));
  // a sure investment is made on every call; a marginal one on a share of calls
  const rate = Math.min(1, top - bar);
  if (input.draw >= rate) return { ...none(`sampled out at rate ${rate.toFixed(2)} (payback ${times(top)})`, rate), funded: true };
  // which candidate: drawn by payback to the fourth power, so evidence goes to the best while a
  // close second is still learned about (spread evenly, it would prove nothing in time)
  const weight = (v: number) => (v / top) ** FOCUS;
  const total = viable.reduce((a, x) => a + weight(x.v), 0);
  let pick = (((input.draw / Math.max(rate, 1e-9)) * 7_919) % 1) * total;
  const chosen = viable.find((x) => (pick -= weight(x.v)) < 0) ?? viable[viable.length - 1]!;
  return { probe: chosen.p, reason: `explored: probed ${chosen.p.key}${chosen.share < 1 ? ` for ${pct(chosen.share)} of calls beside the baseline` : ''} (payback ${times(chosen.v)}, rate ${rate.toFixed(2)})`, payback: bestPayback, rate, funded: true };
}
