import { describe, expect, it } from 'vitest';
import type { Models, Row } from './data.ts';
import { reshape } from './reshape.ts';

const models: Models = {
  baseline: 'base',
  models: {
    base: { input_per_mtok: 10, output_per_mtok: 30 },
    cheap: { input_per_mtok: 1, output_per_mtok: 1 },
    other: { input_per_mtok: 2, output_per_mtok: 2 },
  },
};

function row(step: string, split: 'train' | 'test', i: number, names = ['base', 'cheap', 'other']): Row {
  const id = `${step}/${split}/${i}`;
  const answers: Row['answers'] = {};
  for (const m of names) answers[m] = { text: `${m} on ${id}`, score: 1, usage: { prompt_tokens: 10, completion_tokens: 1 } };
  return { id, step, split, messages: [{ role: 'user', content: `question ${id}` }], answers };
}

// Step a: 70 train + 30 test; step b: 35 train + 15 test, one b train row lacks "cheap";
// step c: 20 rows, never chosen.
const rows: Row[] = [
  ...Array.from({ length: 70 }, (_, i) => row('a', 'train', i)),
  ...Array.from({ length: 30 }, (_, i) => row('a', 'test', i)),
  ...Array.from({ length: 35 }, (_, i) => row('b', 'train', i)),
  row('b', 'train', 99, ['base', 'other']),
  ...Array.from({ length: 15 }, (_, i) => row('b', 'test', i)),
  ...Array.from({ length: 20 }, (_, i) => row('c', i % 2 ? 'test' : 'train', i)),
];

const opts = { steps: ['a', 'b'], calls: 20, models: ['base', 'cheap'], seed: 1 };

function counts(rs: readonly Row[]): Map<string, { train: number; test: number }> {
  const m = new Map<string, { train: number; test: number }>();
  for (const r of rs) {
    const c = m.get(r.step) ?? { train: 0, test: 0 };
    c[r.split]++;
    m.set(r.step, c);
  }
  return m;
}

describe('reshape', () => {
  it('splits each chosen step into about rows/calls small steps, numbered per source step', () => {
    const r = reshape(rows, models, opts);
    const c = counts(r.rows);
    expect([...c.keys()].filter((s) => s.startsWith('a#')).sort()).toEqual(['a#01', 'a#02', 'a#03', 'a#04', 'a#05']);
    expect([...c.keys()].filter((s) => s.startsWith('b#')).sort()).toEqual(['b#01', 'b#02', 'b#03']);
    expect([...c.keys()].some((s) => s.startsWith('c'))).toBe(false);
    expect(r.summary).toEqual([
      { step: 'a', rows: 100, train: 70, test: 30, steps: 5 },
      { step: 'b', rows: 50, train: 35, test: 15, steps: 3 },
    ]);
  });

  it('keeps the source train/test proportion in every small step, with rows of that source step only', () => {
    const r = reshape(rows, models, opts);
    for (const [step, n] of counts(r.rows)) {
      if (step.startsWith('a#')) expect(n).toEqual({ train: 14, test: 6 });
      else expect(n.test).toBe(5);
      if (step.startsWith('b#')) expect(n.train).toBeGreaterThanOrEqual(11);
    }
    for (const x of r.rows) expect(x.id.split('/')[0]).toBe(x.step.split('#')[0]);
    // Every kept row appears once.
    expect(new Set(r.rows.map((x) => x.id)).size).toBe(r.rows.length);
    expect(r.rows.length).toBe(150);
  });

  it('keeps only the listed models, drops rows lacking one, and refuses a list without the baseline', () => {
    const r = reshape(rows, models, opts);
    expect(r.models).toEqual({ baseline: 'base', models: { base: models.models.base, cheap: models.models.cheap } });
    for (const x of r.rows) expect(Object.keys(x.answers).sort()).toEqual(['base', 'cheap']);
    expect(r.rows.some((x) => x.id === 'b/train/99')).toBe(false);
    expect(r.dropped.join(' ')).toMatch(/1 rows lack/);
    expect(() => reshape(rows, models, { ...opts, models: ['cheap'] })).toThrow(/baseline/);
    expect(() => reshape(rows, models, { ...opts, models: ['base', 'nope'] })).toThrow(/nope/);
    expect(() => reshape(rows, models, { ...opts, steps: ['zz'] })).toThrow(/zz/);
  });

  it('is deterministic for a seed and changes with it', () => {
    const assign = (seed: number) => reshape(rows, models, { ...opts, seed }).rows.map((x) => `${x.id}@${x.step}`);
    expect(assign(1)).toEqual(assign(1));
    expect(assign(2)).not.toEqual(assign(1));
  });

  it('leaves the source rows untouched', () => {
    reshape(rows, models, opts);
    expect(rows[0]!.step).toBe('a');
    expect(Object.keys(rows[0]!.answers)).toHaveLength(3);
  });
});
