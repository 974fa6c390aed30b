// Named sets: workloads of another shape than the dev set, built from it at run time (seeded; no
// data file is copied) and run by name (`npm run bench:routing -- --set NAME`). See README.md,
// "Named sets".
//
//   small-steps  many steps of ~130 calls, two models (reshape.ts: arc_challenge + winogrande,
//                the baseline and mixtral-8x7b)
//   wrong-prior  one general-assistant step of ~800 mixed questions (rows of three source steps
//                under one step id) whose baseline is a mid model, a cheaper candidate at least
//                as accurate on these rows, and catalog strengths that call the candidate weaker
//   better-cheaper  the held-out shape issue 32 describes: the same mixed step with mixtral-8x7b as
//                the candidate (0.66 accurate against the baseline's 0.50 on these rows), priced at
//                a third of the baseline per call, and catalog strengths that call it weaker
import { cleanRows, rowCost, type Models, type Row } from './data.ts';
import { reshape, shuffledSplits } from './reshape.ts';
import { hash32, mulberry32 } from './prng.ts';

export interface BuiltSet {
  models: Models;
  rows: Row[];
  /** Catalog strengths the harness gives instead of strengths.ts's (model → 0–1). */
  strengths?: Record<string, number>;
  /** What was built, for the run's log: one line each. */
  lines: string[];
}

export interface MixOptions {
  /** The one step id every row gets. */
  step: string;
  /** Rows (train + test) taken from each source step. */
  take: Record<string, number>;
  baseline: string;
  /** Models kept beside the baseline. */
  candidates: string[];
  seed: number;
}

/** One model's accuracy (mean recorded score) and mean cost per call over some rows. */
export interface ModelFigures {
  model: string;
  accuracy: number;
  /** USD per call. */
  cost: number;
}

/** Each model's accuracy and cost per call on `rows` (every model that answered every row), cheapest last. */
export function modelFigures(rows: readonly Row[], source: Models): ModelFigures[] {
  const out: ModelFigures[] = [];
  for (const m of Object.keys(source.models)) {
    if (rows.length === 0 || rows.some((r) => r.answers[m] === undefined)) continue;
    const accuracy = rows.reduce((a, r) => a + r.answers[m]!.score, 0) / rows.length;
    const cost = rows.reduce((a, r) => a + rowCost(r, m, source), 0) / rows.length;
    out.push({ model: m, accuracy, cost });
  }
  return out.sort((a, b) => b.cost - a.cost || a.model.localeCompare(b.model));
}

/**
 * Mixes rows of several source steps into ONE step: from each source step, `take[step]` rows in
 * that step's train/test proportion (each split shuffled with the seed, its first rows kept).
 * Rows keep their ids, prompts and split; their answers keep the baseline and the candidates;
 * the set's baseline is `baseline`. Rows lacking any source model's answer, and train copies of
 * test prompts, are left out first (as the harness's loadData does).
 */
export function mixSteps(all: readonly Row[], source: Models, o: MixOptions): { models: Models; rows: Row[]; mixed: Row[]; dropped: string[] } {
  const keep = [o.baseline, ...o.candidates.filter((m) => m !== o.baseline)];
  for (const m of keep) if (!source.models[m]) throw new Error(`model ${m} is not in models.json (known: ${Object.keys(source.models).join(', ')})`);
  const known = new Set(all.map((r) => r.step));
  for (const s of Object.keys(o.take)) if (!known.has(s)) throw new Error(`step ${s} is not in the replay (known: ${[...known].sort().join(', ')})`);
  const clean = cleanRows(all.slice(), source);
  const order = new Map(all.map((r, i) => [r, i]));
  const mixed: Row[] = [];
  for (const [step, n] of Object.entries(o.take)) {
    if (!Number.isInteger(n) || n < 2) throw new Error(`rows taken from ${step} must be an integer ≥ 2, got ${n}`);
    const of = clean.rows.filter((r) => r.step === step);
    if (n > of.length) throw new Error(`${step} has ${of.length} usable rows; ${n} asked`);
    const { train, test } = shuffledSplits(of, mulberry32(hash32(`${o.seed}|mix|${step}`)));
    const nTest = Math.min(test.length, Math.max(1, Math.round((n * test.length) / of.length)));
    mixed.push(...train.slice(0, n - nTest), ...test.slice(0, nTest));
  }
  mixed.sort((a, b) => order.get(a)! - order.get(b)!);
  const models: Models = { baseline: o.baseline, models: Object.fromEntries(keep.map((m) => [m, source.models[m]!])) };
  const rows = mixed.map((r) => ({ ...r, step: o.step, answers: Object.fromEntries(keep.map((m) => [m, r.answers[m]!])) }));
  return { models, rows, mixed, dropped: clean.dropped };
}

/** The wrong-prior set's recipe: which rows, which models, and the strengths the catalog gets. */
export const WRONG_PRIOR = {
  step: 'assistant',
  // ~800 calls: mostly commonsense (winogrande), code (mbpp), some science questions (arc_challenge)
  take: { arc_challenge: 80, mbpp: 240, winogrande: 480 } as Record<string, number>,
  // a mid model (mid price, mid accuracy) as the baseline; the candidate is ~4.8× cheaper and at
  // least as accurate on these rows (the figures are printed at every run)
  baseline: 'meta/llama-2-70b-chat',
  candidate: 'mistralai/mistral-7b-chat',
  // the catalog says the candidate is far weaker than the baseline: a prior that is wrong here
  strengths: { 'meta/llama-2-70b-chat': 0.85, 'mistralai/mistral-7b-chat': 0.55 } as Record<string, number>,
};

export function wrongPrior(all: readonly Row[], source: Models, seed: number): BuiltSet {
  const w = WRONG_PRIOR;
  const m = mixSteps(all, source, { step: w.step, take: w.take, baseline: w.baseline, candidates: [w.candidate], seed });
  const figures = modelFigures(m.mixed, source);
  const base = figures.find((f) => f.model === w.baseline)!;
  const cand = figures.find((f) => f.model === w.candidate)!;
  const splits = (rs: readonly Row[]) => `${rs.filter((r) => r.split === 'train').length} train + ${rs.filter((r) => r.split === 'test').length} test`;
  const lines = [
    `set wrong-prior: one step "${w.step}" of ${m.rows.length} rows (${splits(m.rows)}) from ${Object.entries(w.take)
      .map(([s, n]) => `${s} ${n}`)
      .join(', ')} (seed ${seed})`,
    'every model on these rows (accuracy, cost per 1,000 calls, cost against the set baseline):',
    ...figures.map((f) => `  ${f.model.padEnd(36)} ${f.accuracy.toFixed(3)}  $${(f.cost * 1000).toFixed(3)}  ${(f.cost / base.cost).toFixed(2)}×${f.model === w.baseline ? '  ← baseline' : f.model === w.candidate ? '  ← candidate' : ''}`),
    `kept: baseline ${w.baseline}, candidate ${w.candidate} (${(base.cost / cand.cost).toFixed(1)}× cheaper, accuracy ${cand.accuracy.toFixed(3)} vs ${base.accuracy.toFixed(3)}); ` +
      `catalog strengths ${Object.entries(w.strengths)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
  ];
  if (cand.accuracy < base.accuracy) lines.push(`warning: on these rows the candidate is less accurate than the baseline: not the shape this set stands for`);
  for (const d of m.dropped) lines.push(`left out: ${d}`);
  return { models: m.models, rows: m.rows, strengths: w.strengths, lines };
}

/**
 * The better-cheaper set's recipe: the held-out replay's shape (one general-assistant step of ~800
 * calls whose candidate is 3× cheaper and more accurate, 0.69 against 0.52, while the catalog calls
 * it weaker). From the dev data: the wrong-prior set's rows and baseline, mixtral-8x7b as the
 * candidate (0.660 against 0.495 on seed 1's rows), its price scaled so that its mean cost per call
 * on the set's rows is a third of the baseline's (the dev data has no candidate both 3× cheaper and
 * more accurate than a mid model).
 */
export const BETTER_CHEAPER = {
  ...WRONG_PRIOR,
  candidate: 'mistralai/mixtral-8x7b-chat',
  costRatio: 1 / 3,
  strengths: { 'meta/llama-2-70b-chat': 0.85, 'mistralai/mixtral-8x7b-chat': 0.55 } as Record<string, number>,
};

export function betterCheaper(all: readonly Row[], source: Models, seed: number): BuiltSet {
  const w = BETTER_CHEAPER;
  const m = mixSteps(all, source, { step: w.step, take: w.take, baseline: w.baseline, candidates: [w.candidate], seed });
  const before = modelFigures(m.rows, m.models);
  const base = before.find((f) => f.model === w.baseline)!;
  const cand = before.find((f) => f.model === w.candidate)!;
  const scale = (w.costRatio * base.cost) / cand.cost;
  const price = m.models.models[w.candidate]!;
  const models: Models = { ...m.models, models: { ...m.models.models, [w.candidate]: { input_per_mtok: price.input_per_mtok * scale, output_per_mtok: price.output_per_mtok * scale } } };
  const after = modelFigures(m.rows, models).find((f) => f.model === w.candidate)!;
  const lines = [
    `set better-cheaper: one step "${w.step}" of ${m.rows.length} rows from ${Object.entries(w.take)
      .map(([st, n]) => `${st} ${n}`)
      .join(', ')} (seed ${seed})`,
    `baseline ${w.baseline}: accuracy ${base.accuracy.toFixed(3)}, $${(base.cost * 1000).toFixed(3)} per 1,000 calls`,
    `candidate ${w.candidate}: accuracy ${cand.accuracy.toFixed(3)}, priced ×${scale.toFixed(3)} to $${(after.cost * 1000).toFixed(3)} per 1,000 calls (${(base.cost / after.cost).toFixed(2)}× cheaper)`,
    `catalog strengths ${Object.entries(w.strengths)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  ];
  if (cand.accuracy < base.accuracy) lines.push(`warning: on these rows the candidate is less accurate than the baseline: not the shape this set stands for`);
  for (const d of m.dropped) lines.push(`left out: ${d}`);
  return { models, rows: m.rows, strengths: w.strengths, lines };
}

/** The small-steps set's recipe: reshape.ts's defaults (shape A of the README). */
export const SMALL_STEPS = {
  steps: ['arc_challenge', 'winogrande'],
  calls: 130,
  models: ['gpt-4-1106-preview', 'mistralai/mixtral-8x7b-chat'],
};

export function smallSteps(all: readonly Row[], source: Models, seed: number): BuiltSet {
  const r = reshape(all, source, { ...SMALL_STEPS, seed });
  const figures = modelFigures(r.rows, r.models);
  const base = figures.find((f) => f.model === r.models.baseline)!;
  return {
    models: r.models,
    rows: r.rows,
    lines: [
      `set small-steps: ${r.summary.map((s) => `${s.step} → ${s.steps} steps of ~${Math.round(s.rows / s.steps)}`).join(', ')}; ${r.rows.length} rows (seed ${seed})`,
      ...figures.map((f) => `  ${f.model.padEnd(36)} accuracy ${f.accuracy.toFixed(3)}, $${(f.cost * 1000).toFixed(3)} per 1,000 calls, ${(f.cost / base.cost).toFixed(3)}× the baseline`),
      ...r.dropped.map((d) => `left out: ${d}`),
    ],
  };
}

export const SETS: Record<string, (all: readonly Row[], source: Models, seed: number) => BuiltSet> = {
  'small-steps': smallSteps,
  'wrong-prior': wrongPrior,
  'better-cheaper': betterCheaper,
};

export function buildSet(name: string, all: readonly Row[], source: Models, seed: number): BuiltSet {
  const make = SETS[name];
  if (!make) throw new Error(`unknown set ${name} (known: ${Object.keys(SETS).join(', ')})`);
  return make(all, source, seed);
}
