// What the clients' outcomes said of each policy, as the harness reported them: per step, the
// policy each reported call was served with (x-optimizer-policy), how many outcomes it got, and
// the served answers' retention of the baseline's on those same rows (paired, from the
// recording). The gateway reads the same outcomes unpaired (against its baseline calls'), so a
// step view's "outcomes r on n" can be checked against what was truly reported.
import type { CallRecord } from './phases.ts';

export interface PolicyOutcomes {
  n: number;
  /** Σ served score / Σ baseline score over the reported calls (the recording's truth for them). */
  retention: number;
  /** The baseline's mean score on those rows: how hard they were (a share served by one policy that is harder or easier than the step's rows biases an unpaired reading). */
  baseline_accuracy: number;
}

export function outcomesByPolicy(records: readonly CallRecord[], least = 1): Record<string, Record<string, PolicyOutcomes>> {
  const sums = new Map<string, Map<string, { n: number; served: number; base: number }>>();
  for (const r of records) {
    if (!r.reported || r.policy === null) continue;
    const step = sums.get(r.step) ?? new Map();
    sums.set(r.step, step);
    const t = step.get(r.policy) ?? { n: 0, served: 0, base: 0 };
    step.set(r.policy, t);
    t.n++;
    t.served += r.score;
    t.base += r.baselineScore;
  }
  const out: Record<string, Record<string, PolicyOutcomes>> = {};
  for (const [step, byPolicy] of sums) {
    const kept = [...byPolicy].filter(([, t]) => t.n >= least).sort((a, b) => b[1].n - a[1].n);
    if (kept.length > 0) out[step] = Object.fromEntries(kept.map(([p, t]) => [p, { n: t.n, retention: t.base > 0 ? t.served / t.base : 1, baseline_accuracy: t.base / t.n }]));
  }
  return out;
}

/** Report lines: a line per step, its policies most reported first. */
export function outcomesLines(byStep: Record<string, Record<string, PolicyOutcomes>>): string[] {
  return Object.entries(byStep).map(([step, byPolicy]) => `${step}: ${Object.entries(byPolicy).map(([p, v]) => `${p} ${v.retention.toFixed(3)} on ${v.n} (baseline right on ${v.baseline_accuracy.toFixed(3)})`).join('; ')}`);
}
