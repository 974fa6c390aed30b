import { describe, expect, it } from 'vitest';
import type { Models, Row } from './data.ts';
import { BETTER_CHEAPER, buildSet, mixSteps, modelFigures, SMALL_STEPS, WRONG_PRIOR } from './sets.ts';

const BASE = WRONG_PRIOR.baseline;
const CAND = WRONG_PRIOR.candidate;
const TOP = SMALL_STEPS.models[0]!;
const MIXTRAL = SMALL_STEPS.models[1]!;

// Every answer uses 1,000 prompt tokens and none for completion: a call costs input price / 1,000.
const source: Models = {
  baseline: TOP,
  models: {
    [TOP]: { input_per_mtok: 10, output_per_mtok: 30 },
    [BASE]: { input_per_mtok: 1, output_per_mtok: 1 },
    [CAND]: { input_per_mtok: 0.2, output_per_mtok: 0.2 },
    [MIXTRAL]: { input_per_mtok: 0.6, output_per_mtok: 0.6 },
  },
};

/** A row where the candidate scores `cand` and every other model `other`. */
function row(step: string, split: 'train' | 'test', i: number, cand: number, other = 1): Row {
  const id = `${step}/${split}/${i}`;
  const answers: Row['answers'] = {};
  for (const m of Object.keys(source.models)) answers[m] = { text: `${m} on ${id}`, score: m === CAND ? cand : other, usage: { prompt_tokens: 1000, completion_tokens: 0 } };
  return { id, step, split, messages: [{ role: 'user', content: `question ${id}` }], answers };
}

/** `n` rows of a step, 70 % train; the candidate right on every row, the others on every other row. */
function rowsOf(step: string, n: number, cand = (_i: number) => 1, other = (i: number) => i % 2): Row[] {
  const train = Math.round(n * 0.7);
  return Array.from({ length: n }, (_, i) => row(step, i < train ? 'train' : 'test', i, cand(i), other(i)));
}

const all: Row[] = [...rowsOf('arc_challenge', 200), ...rowsOf('mbpp', 400), ...rowsOf('winogrande', 700), ...rowsOf('other', 50)];

describe('mixing source steps into one step', () => {
  const o = { step: 'mixed', take: { arc_challenge: 20, mbpp: 40 }, baseline: BASE, candidates: [CAND], seed: 1 };

  it('takes the asked rows of each source step, in its train/test proportion, under one step id', () => {
    const m = mixSteps(all, source, o);
    expect(m.rows).toHaveLength(60);
    expect(new Set(m.rows.map((r) => r.step))).toEqual(new Set(['mixed']));
    const from = (s: string, split: string) => m.rows.filter((r) => r.id.startsWith(`${s}/${split}/`)).length;
    expect([from('arc_challenge', 'train'), from('arc_challenge', 'test')]).toEqual([14, 6]);
    expect([from('mbpp', 'train'), from('mbpp', 'test')]).toEqual([28, 12]);
    expect(m.rows.some((r) => r.id.startsWith('winogrande') || r.id.startsWith('other'))).toBe(false);
    expect(new Set(m.rows.map((r) => r.id)).size).toBe(60);
    // each row keeps its split
    for (const r of m.rows) expect(r.id.split('/')[1]).toBe(r.split);
  });

  it('keeps the baseline and the candidates only, and makes the mid model the baseline', () => {
    const m = mixSteps(all, source, o);
    expect(m.models).toEqual({ baseline: BASE, models: { [BASE]: source.models[BASE], [CAND]: source.models[CAND] } });
    for (const r of m.rows) expect(Object.keys(r.answers).sort()).toEqual([BASE, CAND].sort());
    // the unreduced rows stay available for the figures of every model
    expect(Object.keys(m.mixed[0]!.answers)).toHaveLength(4);
  });

  it('is the same for a seed, differs with another, and leaves the source rows as they were', () => {
    const ids = (seed: number) => mixSteps(all, source, { ...o, seed }).rows.map((r) => r.id);
    expect(ids(1)).toEqual(ids(1));
    expect(ids(2)).not.toEqual(ids(1));
    expect(all[0]!.step).toBe('arc_challenge');
    expect(Object.keys(all[0]!.answers)).toHaveLength(4);
  });

  it('refuses an unknown step or model, and more rows than a step has', () => {
    expect(() => mixSteps(all, source, { ...o, take: { nope: 10 } })).toThrow(/nope/);
    expect(() => mixSteps(all, source, { ...o, candidates: ['nope'] })).toThrow(/nope/);
    expect(() => mixSteps(all, source, { ...o, take: { other: 51 } })).toThrow(/50 usable rows/);
  });
});

describe("each model's figures on a set's rows", () => {
  it('is the mean score and the mean recorded cost per call, dearest first', () => {
    const rows = [row('x', 'train', 1, 1, 0), row('x', 'train', 2, 0, 1), row('x', 'test', 3, 1, 1), row('x', 'test', 4, 1, 0)];
    const f = modelFigures(rows, source);
    expect(f.map((x) => x.model)).toEqual([TOP, BASE, MIXTRAL, CAND]);
    const cand = f.find((x) => x.model === CAND)!;
    expect(cand.accuracy).toBeCloseTo(3 / 4);
    expect(cand.cost).toBeCloseTo(0.2 / 1000);
    expect(f.find((x) => x.model === BASE)!.accuracy).toBeCloseTo(2 / 4);
    expect(f.find((x) => x.model === TOP)!.cost).toBeCloseTo(10 / 1000);
  });
});

describe('the named sets', () => {
  it('wrong-prior: one step of ~800 mixed rows, a mid baseline, a cheaper candidate, and strengths that call it weaker', () => {
    const s = buildSet('wrong-prior', all, source, 1);
    const total = Object.values(WRONG_PRIOR.take).reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThanOrEqual(700);
    expect(total).toBeLessThanOrEqual(900);
    expect(s.rows).toHaveLength(total);
    expect(new Set(s.rows.map((r) => r.step))).toEqual(new Set([WRONG_PRIOR.step]));
    expect(new Set(s.rows.map((r) => r.id.split('/')[0])).size).toBeGreaterThanOrEqual(3);
    expect(s.models.baseline).toBe(BASE);
    expect(Object.keys(s.models.models).sort()).toEqual([BASE, CAND].sort());
    expect(source.models[CAND]!.input_per_mtok).toBeLessThan(source.models[BASE]!.input_per_mtok);
    expect(s.strengths![CAND]!).toBeLessThan(s.strengths![BASE]!);
    // the figures of every model are printed; the candidate here is right on every row
    expect(s.lines.filter((l) => l.includes('←'))).toHaveLength(2);
    expect(s.lines.join('\n')).toMatch(/5\.0× cheaper, accuracy 1\.000 vs 0\.50/);
    expect(s.lines.some((l) => l.startsWith('warning'))).toBe(false);
  });

  it('wrong-prior warns when the candidate is less accurate than the baseline on the rows it took', () => {
    const worse = all.map((r) => ({ ...r, answers: { ...r.answers, [CAND]: { ...r.answers[CAND]!, score: 0 } } }));
    expect(buildSet('wrong-prior', worse, source, 1).lines.some((l) => l.startsWith('warning'))).toBe(true);
  });

  it('better-cheaper: the wrong-prior rows with mixtral as the candidate, priced at a third of the baseline per call, and called weaker', () => {
    const s = buildSet('better-cheaper', all, source, 1);
    expect(BETTER_CHEAPER.candidate).toBe(MIXTRAL);
    expect(s.rows).toHaveLength(Object.values(BETTER_CHEAPER.take).reduce((a, b) => a + b, 0));
    expect(new Set(s.rows.map((r) => r.step))).toEqual(new Set([BETTER_CHEAPER.step]));
    expect(s.models.baseline).toBe(BASE);
    expect(Object.keys(s.models.models).sort()).toEqual([BASE, MIXTRAL].sort());
    const f = modelFigures(s.rows, s.models);
    const base = f.find((x) => x.model === BASE)!;
    const cand = f.find((x) => x.model === MIXTRAL)!;
    expect(cand.cost / base.cost).toBeCloseTo(1 / 3, 6);
    // the source's prices are left as they were
    expect(source.models[MIXTRAL]!.input_per_mtok).toBe(0.6);
    expect(s.strengths![MIXTRAL]!).toBeLessThan(s.strengths![BASE]!);
    expect(s.lines.join('\n')).toMatch(/3\.00× cheaper/);
  });

  it('small-steps: steps of ~130 calls, two models, from reshape', () => {
    const s = buildSet('small-steps', all, source, 1);
    const sizes = new Map<string, number>();
    for (const r of s.rows) sizes.set(r.step, (sizes.get(r.step) ?? 0) + 1);
    // arc_challenge 200 rows → 2 steps, winogrande 700 → 5 steps
    expect([...sizes.keys()].sort()).toEqual(['arc_challenge#01', 'arc_challenge#02', 'winogrande#01', 'winogrande#02', 'winogrande#03', 'winogrande#04', 'winogrande#05']);
    for (const n of sizes.values()) expect(n).toBeGreaterThanOrEqual(100);
    expect(Object.keys(s.models.models).sort()).toEqual([TOP, MIXTRAL].sort());
    expect(s.strengths).toBeUndefined();
  });

  it('refuses an unknown name', () => {
    expect(() => buildSet('nope', all, source, 1)).toThrow(/small-steps, wrong-prior/);
  });
});
