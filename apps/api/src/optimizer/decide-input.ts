// What the optimizer decides from (optimizer.ts, `decide`), in a file of its own so the
// modules that help decide (prospects.ts) read it without importing the optimizer back.
import type { JudgePanel } from './judge-panel.ts';
import type { Policy } from './policies.ts';

export interface StepKey {
  accountId: string;
  workflowId: string;
  fingerprint: string;
  label: string;
  release: string;
  /** The step's declared kind (`optimizer.step.kind`): steps of one kind share priors. */
  kind?: string;
}

export interface DecideInput {
  step: StepKey;
  baseline: string;
  /** Routable models cheaper than the baseline, cheapest first. */
  cheaper: string[];
  floor: number;
  allowGates: boolean;
  /** A uniform draw in [0, 1) for sampling decisions. */
  draw: number;
  /**
   * Exploration budgets: a share of the step's own baseline spend plus an allowance in
   * baseline calls; optionally a fixed cap for the step; the tenant's over the last 24 h.
   */
  budget?: { share: number; allowanceCalls: number; stepMicros?: number; dailyMicros: number };
  /** Each cheaper candidate's price as a share of the baseline's. */
  priceShares?: Record<string, number>;
  /** Each cheaper candidate's catalog strength for the step's kind, over the candidates' median (a prior on where to explore). */
  strengths?: Record<string, number>;
  /** Each cheaper candidate's catalog strength as a share of the baseline's (where a trial's retention starts). */
  strengthShares?: Record<string, number>;
  /** The judge's price as a share of the baseline's (what a grade costs until measured). */
  judgeShare?: number;
  /** The tenant's panel of the configured judge and a cheaper one, and the cheaper one's price share. */
  judges?: { panel: JudgePanel; cheapShare: number };
  /**
   * A finalized lockfile in force for the step (a workflow in production, design §9): its
   * policy serves whatever the candidates or the evidence say, nothing is probed, and only
   * drift checks of the served answer explore. `prune` is the lockfile's pruning policy.
   */
  locked?: LockedStep;
  /** How a policy is chosen among those that hold (routing settings `tiebreak` and `band`); the cheapest by default. */
  choice?: Choice;
  /** Only single-model policies may serve (advanced search off, or a call that asks for latency), a settled ensemble included. */
  singleModel?: boolean;
  /** Serve the baseline whatever holds (routing settings `mode` other than `auto`); learning follows `learning`. */
  serveBaseline?: boolean;
  /**
   * Routing settings `learning_mode` (or the step's own in its annotation): serve (default: unproven
   * candidates serve a sampled share of calls within the quality-risk budget, side probes beside),
   * shadow (side probes only, after the answer), off (no trials, no probes, no drift checks).
   */
  learning?: LearningMode;
  /** Discovery mode for this call (the agent's flag on, the call asks, credit left): probe actively, no payback rule. */
  discover?: boolean;
  /** Why this call may not probe though its budgets allow it (a call that asks for latency). */
  noProbe?: string;
}

export type LearningMode = 'serve' | 'shadow' | 'off';

export interface Choice {
  /** What decides between policies whose costs lie within `band` of the cheapest holding one. */
  tiebreak: 'cost' | 'latency' | 'quality';
  /** The tie band, as a share of the baseline's cost per call (0: only the cheapest). */
  band: number;
  /** A policy's expected latency in ms (latency tiebreak); Infinity when unknown. */
  latencyOf?: (p: Policy) => number;
}

export interface LockedStep {
  policy: string;
  /** The report version the lockfile was derived from. */
  version: number;
  prune: boolean;
  /** Why the lockfile's own policy could not serve, when the baseline stands in for it. */
  note?: string;
}
