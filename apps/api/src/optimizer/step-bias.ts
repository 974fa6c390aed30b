// The catalog's bias on one step. A published strength (MMLU, HumanEval) is off for a step's task
// alike for most models: HumanEval's shares put every cheap model 0.1 to 0.4 under what it keeps
// on a step of short code tasks, so a model the step would serve on most calls started at 0.58
// and was priced as a weak model's trials. A hierarchical model: a candidate's retention on the
// step is its strength share, plus the step's bias (one for all its models), plus its own
// difference; the bias is read off what the step has measured of its other models, so evidence
// on any of them moves where the untried ones start. Pure.
import { TRIAL_PRIOR_SD } from './trials.ts';

/** The spread of a step's bias before its evidence: most of the catalog prior's spread is the task, not the model. */
export const BIAS_SD = 0.15;
/** A model's own difference from its share plus the bias (the rest of the prior's spread). */
export const OWN_SD = Math.sqrt(TRIAL_PRIOR_SD ** 2 - BIAS_SD ** 2);

/** What the step has measured of one model against its strength share. */
export interface Reading {
  model: string;
  share: number;
  /** Its retention on the step and that figure's standard error. */
  r: number;
  se: number;
}

/**
 * The step's bias as the readings put it (a normal posterior from a zero-mean prior of spread
 * BIAS_SD): each reading says share + bias + its own difference, so it counts by the precision of
 * its error and OWN_SD together, and a model no reading measured well moves it little.
 */
export function stepBias(readings: readonly Reading[]): { mean: number; sd: number } {
  let precision = 1 / BIAS_SD ** 2;
  let weighed = 0;
  for (const x of readings) {
    const w = 1 / (OWN_SD ** 2 + x.se ** 2);
    precision += w;
    weighed += w * (x.r - x.share);
  }
  return { mean: weighed / precision, sd: Math.sqrt(1 / precision) };
}

/** Where a candidate of strength share `share` starts on the step: moved by the bias the other models' readings show, as unsure as it and OWN_SD. */
export function biasedStart(share: number, others: readonly Reading[]): { mean: number; sd: number } {
  const bias = stepBias(others);
  return { mean: share + bias.mean, sd: Math.hypot(OWN_SD, bias.sd) };
}
