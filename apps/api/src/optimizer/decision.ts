// A decision on one routed call: which policy serves it, what is probed or judge-checked beside
// it, whether its context may be pruned, and the reasons the call's record shows for each.
import type { Choice, DecideInput } from './decide-input.ts';
import { DRIFT_CHECK_EVERY } from './drift.ts';
import type { PolicyStats } from './evidence-types.ts';
import { MIN_EVIDENCE } from './exploration.ts';
import type { Mix } from './mix.ts';
import { describePolicy, policyKey, type Policy } from './policies.ts';
import type { Trial } from './serve-trial.ts';
import { recentOutcomeShare, type StepState } from './step-state.ts';

/** Samples a candidate gets before a poor estimate may close it. */
export const MIN_OPEN_SAMPLES = 30;
/** Pruned requests compared with their unpruned form before pruning may go on once a step settles. */
export const MIN_PRUNE_SAMPLES = 20;
/** While the baseline's quality is not known, the share of probes that grade its answer at random. */
const BASELINE_SAMPLE_RATE = 0.25;
/** Share of probes on which the judge grades the baseline's answer twice. */
const REGRADE_SHARE = 0.5;
/** Regrades per step after which the judge's error rate is known well enough. */
const MAX_REGRADES = 30;

export interface Decision {
  policy: Policy;
  /** Models to probe on this call (at most one candidate policy's; empty when not exploring). */
  probe: string[];
  /** The candidate policy the probe is for. */
  probing?: string;
  /** Compare the probe with the served answer, not the baseline's (a model probed while another policy serves). */
  chained?: boolean;
  /** Have the judge grade probed answers that differ from the baseline's (else the call's outcome decides). */
  gradeDiffering?: boolean;
  /**
   * Have the tenant's unproven cheap judge grade the answer the client gets, for the call's
   * outcome to measure it: where outcomes come and exploring is in sight (its payback nears 1).
   */
  gradeForTruth?: boolean;
  /** Judge-check the served answer (a drift check on a settled step). */
  check: boolean;

  /** An unproven policy serves this call to learn (learning_mode serve): which, and the share of the step's risk budget its trials use. */
  trial?: { policy: string; budgetUsed: number };
  /**
   * Grade the trial's answer after it is sent (a step without outcomes): the baseline answers the
   * same request beside it and the judge grades the two where they differ (serve-trial.ts, `silentTrials`).
   */
  gradeTrial?: boolean;
  /**
   * A proven model serving a step without outcomes, its answer graded after it is sent as a graded
   * trial's is (`confirmAnswer`): the policy key. Its proof stood on grades gathered while the step
   * chose whom to try and probe by what it had seen so far; a share of the answers it now serves,
   * graded whatever it looks like, confirms the proof or withdraws it.
   */
  confirm?: string;
  /** Have the judge grade the baseline's probed answer a second time (its self-consistency). */
  regrade: boolean;
  /** Have the judge grade the baseline's answer at random (how good the baseline is, while outcomes do not say). */
  sampleBaseline: boolean;
  /**
   * Whether this call's context may be pruned: while the step explores (to gather the
   * evidence) and, once it settles, only while that evidence says pruned answers hold the bar.
   */
  prune: boolean;
  /** The least share of the prompt pruning must remove to be applied (0 once pruning is proven on the step). */
  pruneMinShare: number;
  settled: boolean;
  reasons: string[];
}

/**
 * The policy to serve among those that hold: the cheapest, unless a tiebreak other than cost
 * picks among the ones within the band of it (the cheaper of equals).
 */
export function pickHolder<T extends { policy: Policy; stats: PolicyStats }>(holders: T[], baselineCost: number, choice: Choice | undefined): T | null {
  if (holders.length === 0) return null;
  const byCost = [...holders].sort((a, b) => a.stats.costMicros - b.stats.costMicros);
  const cheapest = byCost[0]!;
  if (!choice || choice.tiebreak === 'cost') return cheapest;
  const edge = cheapest.stats.costMicros + Math.max(0, choice.band) * baselineCost;
  const tied = byCost.filter((h) => h.stats.costMicros <= edge);
  const score = (h: T) => (choice.tiebreak === 'quality' ? -h.stats.lcb : (choice.latencyOf?.(h.policy) ?? Infinity));
  return tied.reduce((best, h) => (score(h) < score(best) ? h : best), cheapest);
}

/** Why a mix serves the call, and which of its sides this call got. */
export function mixReason(m: Mix, served: Policy, input: DecideInput): string {
  const over = m.over ? describePolicy(m.over.policy) : `the baseline ${input.baseline}`;
  return `routed to ${describePolicy(served)} by a mix: ${describePolicy(m.under.policy)} on ${Math.round(m.share * 100)}% of calls (${m.under.stats.n} samples, under ${input.floor} alone), ${over} on the rest; the mix holds ${m.bound.toFixed(3)} ≥ ${input.floor} of the baseline's quality`;
}

/**
 * The retention a call served without a trial is counted at in the risk budget: the baseline's 1,
 * else the policy's bound; under a mix, the mix's bound whichever side serves. The mix holds the
 * floor only on average: its baseline side's surplus pays for its cheaper side's shortfall, and
 * counted at 1 it paid for trials as well (`winogrande`, a mix of Yi-34B at 0.88 of the baseline on
 * a third of the calls, spent its baseline calls' margin on trials of weaker models and served at 0.90).
 */
export function retentionOf(chosen: Policy, input: DecideInput, bound: number | undefined, mixBound?: number): number {
  if (mixBound !== undefined) return mixBound;
  const isBase = chosen.kind === 'model' && chosen.model === input.baseline;
  return isBase ? 1 : (bound ?? input.floor);
}

/**
 * A trial call: its reasons say so. Its evidence is the client's outcome on it, or where no outcomes
 * come its answer graded paired with the baseline's side answer after it is sent (`gradeTrialAnswer`);
 * never an unpaired judge grade (docs/decisions.md, "Learning by serving": read against a few judged
 * baseline answers, that overstated weak candidates where no outcomes came).
 */
export function markTrial(d: Decision, trial: Trial): void {
  d.trial = { policy: policyKey(trial.candidate.policy), budgetUsed: trial.used };
  d.reasons[0] = trial.reason;
  d.prune = false; // one thing in question at a time: the candidate, on the request as sent
  d.regrade = false;
  d.sampleBaseline = false;
}

/**
 * A served answer graded after it is sent, paired with the baseline's side answer (a trial's, or a
 * proof's confirmation, on a step without outcomes): the reasons say why, and while the baseline's
 * quality is not known its side answer is graded at random, as a probe's is.
 */
function gradeAfterAnswer(d: Decision, s: StepState, input: DecideInput, why: string): void {
  d.sampleBaseline = !s.evidence.baselineKnown() && (input.draw * 7919) % 1 < BASELINE_SAMPLE_RATE;
  d.reasons.push(`${why}: after the answer, the baseline answers the same request and the judge grades the two where they differ`);
}

/** A trial on a step without outcomes whose answer is graded after it is sent (`gradeAfterAnswer`). */
export function gradeTrialAnswer(d: Decision, s: StepState, input: DecideInput): void {
  d.gradeTrial = true;
  gradeAfterAnswer(d, s, input, 'no outcomes come on this step');
}

/** Samples a model proven where no outcomes come is graded to, on its served answers (twice a proof's). */
export const CONFIRM_SAMPLES = 2 * MIN_EVIDENCE;
/** The share of its served calls graded until then. */
export const CONFIRM_SHARE = 0.25;

/**
 * Whether this call's answer confirms the proof of the model serving it, on a step without outcomes: a
 * share of its calls, drawn apart from everything it has shown, until its samples reach CONFIRM_SAMPLES.
 * A step stops trying and probing a candidate once it has enough samples to decide on, and the
 * candidates it kept trying long enough to decide on are the ones whose first samples went well: the
 * samples a proof reads are chosen by the samples themselves. Where outcomes come they keep arriving on
 * whatever serves; here nothing did, and a model a step read at 1.07 of the baseline on its forty
 * judged samples served on at 0.85 (the routing bench's `winogrande`, no outcomes, under load).
 */
export function confirms(chosen: Policy, own: PolicyStats | undefined, input: DecideInput): boolean {
  if (chosen.kind !== 'model' || chosen.model === input.baseline || !own) return false;
  return own.n < CONFIRM_SAMPLES && (input.draw * 104729) % 1 < CONFIRM_SHARE;
}

/** A call that confirms its model's proof (`key`, on `n` samples so far): its answer is graded after it is sent (`gradeAfterAnswer`). */
export function confirmAnswer(d: Decision, s: StepState, input: DecideInput, key: string, n: number): void {
  d.confirm = key;
  gradeAfterAnswer(d, s, input, `confirming its proof (${n} of ${CONFIRM_SAMPLES} samples, no outcomes come)`);
}

/**
 * The decision on a call once the policy serving it is chosen: its reasons, whether a drift check
 * grades its answer, whether its context may be pruned, and the judge's samples beside a probe.
 */
export function decisionFor(s: StepState, chosen: Policy, st: PolicyStats | undefined, input: DecideInput, stillOpen: Policy[], settled: boolean, probe: string[], gradeCost: number): Decision {
  const reasons: string[] = [];
  const isBaseline = chosen.kind === 'model' && chosen.model === input.baseline;
  if (!isBaseline && st) {
    reasons.push(`routed to ${describePolicy(chosen)}: holds ${st.lcb.toFixed(3)} ≥ ${input.floor} of the baseline's quality on ${st.n} samples`);
  } else {
    reasons.push(`served by the baseline ${input.baseline}: no cheaper policy proven to hold ${input.floor}${settled ? '' : ' yet'}`);
  }
  const cheaperOpen = stillOpen.slice(0, 2).map(describePolicy);
  if (cheaperOpen.length) reasons.push(`cheaper but unproven: ${cheaperOpen.join('; ')}`);
  s.settledCalls = settled ? s.settledCalls + 1 : 0;
  const check = settled && !isBaseline && recentOutcomeShare(s) < 0.05 && s.settledCalls % DRIFT_CHECK_EVERY === 0;
  const pruning = s.evidence.pruneStats();
  const proven = pruning.n >= MIN_PRUNE_SAMPLES && pruning.lcb >= input.floor;
  const rejected = pruning.n >= MIN_OPEN_SAMPLES && pruning.ucb < input.floor;
  // proving pruning takes a shadow per call (the baseline on the request as sent, and a grade unless
  // the answers agree): it pays only where pruning removes enough of the prompt, over the step's remaining traffic
  const shadows = Math.max(1, MIN_PRUNE_SAMPLES - pruning.n);
  const pruneMinShare = proven ? 0 : (shadows * (1 + gradeCost)) / Math.max(1, s.traffic.calls);
  const prune = proven || (probe.length > 0 && !rejected && pruneMinShare < 1);
  // a second draw for the judge's samples, independent enough of the one that chose to probe
  const draw2 = (input.draw * 7919) % 1;
  const sampleBaseline = probe.length > 0 && !s.evidence.baselineKnown() && draw2 < BASELINE_SAMPLE_RATE;
  // the judge's error comes from its panel when it has one; else from regrades of the baseline's answer
  const regrade = probe.length > 0 && !input.judges?.panel.errors() && draw2 < REGRADE_SHARE && s.evidence.regrades() < MAX_REGRADES;
  return { policy: chosen, probe, check, settled, reasons, regrade, sampleBaseline, prune, pruneMinShare };
}
