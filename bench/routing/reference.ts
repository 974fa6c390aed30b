// The retention and saving math, and the reference lines computed from the data alone (no
// gateway): the best one-model-per-step choice at the floor, the best per-step policy mixed with
// the baseline as if train were known, and the per-prompt oracle.
import { MIN_MIX_SHARE, MIX_MARGIN } from '../../apps/api/src/optimizer/mix.ts';
import { agree } from '../../apps/api/src/optimizer/normalize.ts';
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

export interface KnownMix extends LineResult {
  /**
   * Per step, chosen on train: the policy (a model, or `a|b` for a gate), the share of calls it
   * serves, what serves the rest (the baseline, or a policy over the bar), the mix's train
   * retention, and its test numbers.
   */
  per_step: Record<string, { policy: string; share: number; beside: string; train_retention: number | null; saving: number; retention: number | null }>;
}

/** One answer of a policy on a row: a model's own, or a gate's (agreement serves the first model's answer, else the baseline answers too). */
function policyAnswer(r: Row, policy: readonly string[], models: Models): { score: number; cost: number } {
  const base = models.baseline;
  if (policy.length === 0) return { score: r.answers[base]!.score, cost: rowCost(r, base, models) };
  const own = policy.reduce((s, m) => s + rowCost(r, m, models), 0);
  if (policy.length === 1 || agree(r.answers[policy[0]!]!.text, r.answers[policy[1]!]!.text)) return { score: r.answers[policy[0]!]!.score, cost: own };
  return { score: r.answers[base]!.score, cost: own + rowCost(r, base, models) };
}

/** A policy's train figures: retention and cost as shares of the baseline's (the baseline is `[]`). */
interface Known {
  policy: string[];
  retention: number;
  costShare: number;
}

/**
 * The most a per-step router could save with nothing to learn. For each step, every cheaper
 * model and every agreement gate of two (the gateway's own `agree`) is known on train as if every
 * answer were paid for; the best saving at floor + MIX_MARGIN is chosen among one policy alone,
 * or a policy under that aim serving a share of calls (at least MIN_MIX_SHARE, as in the gateway)
 * beside one over it or the baseline; then it is measured on test. A router that has to learn
 * pays for its evidence and bounds its estimates' error: it saves less than this line.
 */
export function knownMix(train: readonly Row[], test: readonly Row[], models: Models, floor: number): KnownMix {
  const base = models.baseline;
  const cheaper = Object.keys(models.models).filter((m) => m !== base).sort();
  const policies = [[], ...cheaper.map((m) => [m]), ...cheaper.flatMap((a) => cheaper.filter((b) => b !== a).map((b) => [a, b]))];
  const aim = Math.min(1, floor + MIX_MARGIN);
  const per_step: KnownMix['per_step'] = {};
  let actual = 0;
  let baselineCost = 0;
  let servedSum = 0;
  let baseSum = 0;
  const name = (p: readonly string[]) => (p.length ? p.join('|') : base);
  for (const step of stepsOf([...train, ...test])) {
    const tr = train.filter((r) => r.step === step && cheaper.every((m) => r.answers[m]));
    const te = test.filter((r) => r.step === step);
    const trBase = { score: sum(tr.map((r) => r.answers[base]!.score)), cost: sum(tr.map((r) => rowCost(r, base, models))) };
    const known: Known[] =
      trBase.score > 0 && trBase.cost > 0
        ? policies.map((p) => {
            const answers = tr.map((r) => policyAnswer(r, p, models));
            return { policy: p, retention: sum(answers.map((a) => a.score)) / trBase.score, costShare: sum(answers.map((a) => a.cost)) / trBase.cost };
          })
        : [{ policy: [], retention: 1, costShare: 1 }];
    let best = { low: [] as string[], high: [] as string[], share: 0, saving: 0, retention: 1 };
    const lows = known.filter((k) => k.retention < aim);
    for (const high of known.filter((k) => k.retention >= aim)) {
      if (1 - high.costShare > best.saving) best = { low: high.policy, high: high.policy, share: 1, saving: 1 - high.costShare, retention: high.retention };
      for (const low of lows) {
        const share = (high.retention - aim) / (high.retention - low.retention);
        if (share < MIN_MIX_SHARE) continue;
        const sv = 1 - (share * low.costShare + (1 - share) * high.costShare);
        if (sv > best.saving) best = { low: low.policy, high: high.policy, share, saving: sv, retention: aim };
      }
    }
    let a = 0;
    let s = 0;
    const b = sum(te.map((r) => rowCost(r, base, models)));
    const bs = sum(te.map((r) => r.answers[base]!.score));
    for (const r of te) {
      const lo = policyAnswer(r, best.low, models);
      const hi = policyAnswer(r, best.high, models);
      a += best.share * lo.cost + (1 - best.share) * hi.cost;
      s += best.share * lo.score + (1 - best.share) * hi.score;
    }
    actual += a;
    baselineCost += b;
    servedSum += s;
    baseSum += bs;
    per_step[step] = {
      policy: name(best.low),
      share: best.low.length ? best.share : 1,
      beside: best.share < 1 ? name(best.high) : '',
      train_retention: tr.length ? best.retention : null,
      saving: saving(a, b),
      retention: bs > 0 ? s / bs : null,
    };
  }
  return { saving: saving(actual, baselineCost), retention: baseSum > 0 ? servedSum / baseSum : null, per_step };
}
