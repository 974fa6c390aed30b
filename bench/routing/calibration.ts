// Whether the gateway's retention estimates are honest: each model candidate's estimate on a step
// (as the step view shows it once it has MIN_SAMPLES) against that model's recorded retention on the
// rows the step saw, in the estimate's own standard errors (its lower bound sits Z_STATS of them
// under it). Unbiased estimates with honest bounds read a mean z near 0, a spread near 1, and about
// 5 % beyond each of ±1.64; an estimator that overreads weak candidates reads a positive mean and a
// heavy upper tail.
import { mean, sd } from '../../apps/api/src/optimizer/estimates.ts';
import { Z_STATS } from '../../apps/api/src/optimizer/prospects.ts';
import type { Row } from './data.ts';
import type { WorkflowStep } from './gateway.ts';
import { modelRetention } from './reference.ts';

/** Samples a candidate needs before its estimate is read (fewer say too little for a z to mean much). */
export const MIN_SAMPLES = 20;
const TAIL_Z = 1.64;

export interface Misread {
  step: string;
  model: string;
  n: number;
  estimate: number;
  truth: number;
  z: number;
}

export interface Calibration {
  /** Estimates read. */
  count: number;
  mean_z: number | null;
  sd_z: number | null;
  /** Shares of estimates more than TAIL_Z standard errors over and under the data's truth. */
  over: number;
  under: number;
  /** The estimates furthest over the truth (the misreads that prove a policy that does not hold). */
  highest: Misread[];
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** Every model candidate's estimate with MIN_SAMPLES or more, against the model's retention on `seen` (the rows each step was sent, by step). */
export function calibration(steps: readonly WorkflowStep[], seen: ReadonlyMap<string, readonly Row[]>, baseline: string): Calibration {
  const reads: Misread[] = [];
  for (const s of steps) {
    const rows = seen.get(s.label) ?? [];
    for (const c of s.candidates ?? []) {
      if (!c.policy.startsWith('model:') || c.n < MIN_SAMPLES) continue;
      const model = c.policy.slice('model:'.length);
      const se = (c.retention - c.lcb) / Z_STATS;
      if (model === baseline || !(se > 0) || rows.length === 0 || rows.some((r) => !r.answers[model])) continue;
      const truth = modelRetention(rows, model, baseline);
      if (truth === null) continue;
      reads.push({ step: s.label, model, n: c.n, estimate: c.retention, truth: round(truth), z: round((c.retention - truth) / se) });
    }
  }
  const zs = reads.map((r) => r.z);
  const m = zs.length > 0 ? mean(zs) : null;
  const share = (f: (z: number) => boolean) => (zs.length > 0 ? round(zs.filter(f).length / zs.length) : 0);
  return {
    count: reads.length,
    mean_z: m === null ? null : round(m),
    sd_z: m !== null && zs.length > 1 ? round(sd(zs, m)) : null,
    over: share((z) => z > TAIL_Z),
    under: share((z) => z < -TAIL_Z),
    highest: [...reads].sort((a, b) => b.z - a.z).slice(0, 3),
  };
}

/** The calibration as one line of the run's log. */
export function calibrationLine(label: string, c: Calibration): string {
  if (c.count === 0) return `estimates against the data (${label}): none with ${MIN_SAMPLES} samples`;
  const top = c.highest[0];
  const worst = top ? `; furthest over: ${top.model} on ${top.step} ${top.estimate} on ${top.n} against ${top.truth} (z ${top.z})` : '';
  return `estimates against the data (${label}): ${c.count} with ${MIN_SAMPLES}+ samples, mean z ${c.mean_z}, sd ${c.sd_z ?? '-'}, ${Math.round(c.over * 100)}% over +${TAIL_Z} and ${Math.round(c.under * 100)}% under -${TAIL_Z} standard errors${worst}`;
}
