// The retention and saving math, and the two reference lines computed from the data alone (no
// gateway): the best one-model-per-step choice at the floor, and the per-prompt oracle.
import { rowCost, stepsOf, type Models, type Row } from './data.ts';

/** 1 − actual / baseline; 0 when the baseline cost nothing. */
export function saving(actual: number, baseline: number): number {
  return baseline > 0 ? 1 - actual / baseline : 0;
}

/**
 * Served mean score / baseline mean score over the same calls (= sum / sum). null when the
 * baseline scored nothing on them (retention is undefined there).
 */
export function retention(served: readonly number[], baseline: readonly number[]): number | null {
  if (served.length !== baseline.length) throw new Error('retention needs one baseline score per served score');
  const b = sum(baseline);
  return b > 0 ? sum(served) / b : null;
}

export function sum(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s;
}

/** `model`'s retention on `rows`: its mean recorded score over the baseline's. */
export function modelRetention(rows: readonly Row[], model: string, baseline: string): number | null {
  return retention(
    rows.map((r) => r.answers[model]!.score),
    rows.map((r) => r.answers[baseline]!.score),
  );
}

export interface LineResult {
  saving: number;
  retention: number | null;
}

export interface OneModelPerStep extends LineResult {
  /** The model chosen for each step (on train), with its train retention and test numbers. */
  per_step: Record<string, { chosen: string; train_retention: number | null; saving: number; retention: number | null }>;
}

/**
 * For each step, the cheapest model (by its total recorded cost on the step's train rows) whose
 * train retention is ≥ floor, else the baseline; measured on test: saving and retention.
 */
export function oneModelPerStep(train: readonly Row[], test: readonly Row[], models: Models, floor: number): OneModelPerStep {
  const base = models.baseline;
  const per_step: OneModelPerStep['per_step'] = {};
  let actual = 0;
  let baselineCost = 0;
  const served: number[] = [];
  const baseScores: number[] = [];
  for (const step of stepsOf([...train, ...test])) {
    const tr = train.filter((r) => r.step === step);
    const te = test.filter((r) => r.step === step);
    let chosen = base;
    let chosenCost = tr.reduce((s, r) => s + rowCost(r, base, models), 0);
    let trainRet: number | null = 1;
    for (const m of Object.keys(models.models).sort()) {
      if (m === base || tr.length === 0) continue;
      const ret = modelRetention(tr, m, base);
      // A baseline that scored nothing on train leaves no bar to hold: keep the baseline.
      if (ret === null || ret < floor) continue;
      const cost = tr.reduce((s, r) => s + rowCost(r, m, models), 0);
      if (cost < chosenCost) {
        chosen = m;
        chosenCost = cost;
        trainRet = ret;
      }
    }
    const a = te.reduce((s, r) => s + rowCost(r, chosen, models), 0);
    const b = te.reduce((s, r) => s + rowCost(r, base, models), 0);
    const sv = te.map((r) => r.answers[chosen]!.score);
    const bs = te.map((r) => r.answers[base]!.score);
    actual += a;
    baselineCost += b;
    served.push(...sv);
    baseScores.push(...bs);
    per_step[step] = { chosen, train_retention: tr.length ? trainRet : null, saving: saving(a, b), retention: retention(sv, bs) };
  }
  return { saving: saving(actual, baselineCost), retention: retention(served, baseScores), per_step };
}

/**
 * Per test prompt, the cheapest model scoring 1 where the baseline scores 1, else the cheapest
 * model with the baseline's score (the baseline itself always qualifies): the most any router
 * could save while matching the baseline's score on every prompt.
 */
export function oracle(test: readonly Row[], models: Models): LineResult {
  const base = models.baseline;
  let actual = 0;
  let baselineCost = 0;
  const served: number[] = [];
  const baseScores: number[] = [];
  for (const r of test) {
    const want = r.answers[base]!.score;
    let best = base;
    let bestCost = rowCost(r, base, models);
    for (const m of Object.keys(models.models).sort()) {
      if (r.answers[m]!.score !== want) continue;
      const c = rowCost(r, m, models);
      if (c < bestCost) {
        best = m;
        bestCost = c;
      }
    }
    actual += bestCost;
    baselineCost += rowCost(r, base, models);
    served.push(r.answers[best]!.score);
    baseScores.push(want);
  }
  return { saving: saving(actual, baselineCost), retention: retention(served, baseScores) };
}
