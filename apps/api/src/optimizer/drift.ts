// Drift: a judge check now and then on a settled step where outcomes are scarce, and the tests
// that tell when the serving policy's recent grades fell clearly under the bar, re-opening the
// step to re-verify the models the drift touched.
import type { StepKey } from './decide-input.ts';
import { mean, sd } from './estimates.ts';
import type { ServedSample } from './evidence-types.ts';
import { mixSides } from './mix.ts';
import { parsePolicy, policyModels } from './policies.ts';
import type { StepState } from './step-state.ts';
import type { CallEvent } from '../wire/events.ts';

/** On a settled step with scarce outcomes, every this-many-th call gets a judge check (0.5 %). */
export const DRIFT_CHECK_EVERY = 200;
/** Drift is tested once per this many new grades of the serving policy, over the last two blocks. */
const DRIFT_BLOCK = 20;
/** A run of failing grades is drift when the policy's own failure rate gives it less than this chance. */
const DRIFT_RUN_P = 1e-5;
const DRIFT_MIN_RUN = 4;
const DRIFT_Z = 3;
const DRIFT_MARGIN = 0.05;

/**
 * Whether the step serves this policy apart from trials: its choice, or a side of the mix it chose.
 */
export function servesNow(chosen: string, policy: string): boolean {
  return chosen === policy || (mixSides(chosen)?.includes(policy) ?? false);
}

/**
 * Watches the policy a step serves (apart from trials) for drift with a graded answer it served:
 * when its recent grades fell clearly under the bar, forgets what its models answered, re-opens the
 * step and returns the drift event. Settled or not: a step that goes on trying cheaper candidates
 * by serving them never settles, and it serves its proven policy all the same (a side of a mix too).
 */
export function watchDrift(s: StepState, step: StepKey, sample: ServedSample, isBaseline: boolean, floor: number): CallEvent | null {
  if (isBaseline || !servesNow(s.chosen, sample.policy)) return null;
  const all = s.evidence.recent(sample.policy, s.reopenedAt);
  const shares = all.map((r) => r.score / (s.evidence.baselineMeanBy(r.source) || 1));
  const fell = fellUnderBar(shares, floor);
  if (fell === null) return null;
  const policy = parsePolicy(sample.policy);
  s.evidence.forgetModels(policyModels(policy), [sample.policy]);
  s.drifted = policyModels(policy);
  s.settled = false;
  s.resettling = true;
  s.reopenedAt = Date.now();
  return { kind: 'drift', at: new Date(), payload: { step: step.label, fingerprint: step.fingerprint, policy: sample.policy, recent_retention: Math.round(fell * 1000) / 1000, floor } };
}

/**
 * Whether a serving policy's recent grades (as shares of the baseline's quality, oldest
 * first) fell clearly under the bar; their recent retention if so. Two tests: a block test
 * of the mean, run once per block of new grades (a test of a sliding window on every grade
 * would raise false alarms on any policy near the bar), and a run of failures the policy's
 * own failure rate makes all but impossible (it catches a broken model within a few grades).
 */
export function fellUnderBar(shares: number[], floor: number): number | null {
  const n = shares.length;
  if (n >= DRIFT_BLOCK && n % DRIFT_BLOCK === 0) {
    const recent = shares.slice(-2 * DRIFT_BLOCK);
    const m = mean(recent);
    const se = sd(recent, m) / Math.sqrt(recent.length) || 0.05;
    if (m + DRIFT_Z * se < floor - DRIFT_MARGIN) return m;
  }
  let run = 0;
  while (run < n && shares[n - 1 - run]! < 0.5) run++;
  const before = shares.slice(0, n - run);
  if (run < DRIFT_MIN_RUN || before.length < 2 * DRIFT_BLOCK) return null;
  const failRate = Math.max(before.filter((x) => x < 0.5).length / before.length, 1 / before.length);
  return failRate ** run < DRIFT_RUN_P ? mean(shares.slice(-run)) : null;
}
