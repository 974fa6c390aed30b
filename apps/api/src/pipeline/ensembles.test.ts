// Serving multi-model policies: who is asked, in what order, and when agreement serves.
import { describe, expect, it } from 'vitest';
import { serveEnsemble, type Ensemble, type EnsembleDeps } from './ensembles.ts';

function fake(answers: Record<string, string>, unusable: string[] = []) {
  const asked: string[] = [];
  const reasons: string[] = [];
  const deps: EnsembleDeps<{ name: string; answer: string }> = {
    run: async (name: string) => {
      asked.push(name);
      return { name, answer: answers[name] ?? '' };
    },
    usable: (c) => !unusable.includes(c.name),
    baseline: 'big',
    reasons,
  };
  return { asked, reasons, serve: (p: Ensemble) => serveEnsemble(p, deps) };
}

const confirm: Ensemble = { kind: 'confirm', model: 'p', by: ['h1', 'h2'] };

describe('confirm', () => {
  it('serves the cheap answer when the first confirmer agrees, without asking the second', async () => {
    const f = fake({ p: 'B', h1: 'b)', h2: 'C', big: 'B' });
    expect((await f.serve(confirm)).name).toBe('p');
    expect(f.asked.sort()).toEqual(['h1', 'p']);
    expect(f.reasons).toEqual(["confirm: h1 agrees with p; serving p's answer"]);
  });

  it('asks the second confirmer only after the first disagrees, and serves on its agreement', async () => {
    const f = fake({ p: 'B', h1: 'C', h2: 'B', big: 'A' });
    expect((await f.serve(confirm)).name).toBe('p');
    expect(f.asked.slice(2)).toEqual(['h2']);
  });

  it('escalates to the baseline when no confirmer agrees, or the cheap answer fails the quality gate', async () => {
    const none = fake({ p: 'B', h1: 'C', h2: 'D', big: 'A' });
    expect((await none.serve(confirm)).name).toBe('big');
    expect(none.reasons[0]).toMatch(/no confirmer agrees with p; escalated to big/);
    const broken = fake({ p: 'B', h1: 'B', h2: 'B', big: 'A' }, ['p']);
    expect((await broken.serve(confirm)).name).toBe('big');
    expect(broken.asked).not.toContain('h2');
  });
});

describe('gate and vote', () => {
  it('serve the first answer only when every model agrees', async () => {
    const vote: Ensemble = { kind: 'vote', models: ['a', 'b', 'c'] };
    const all = fake({ a: 'yes', b: 'Yes', c: 'yes.', big: 'no' });
    expect((await all.serve(vote)).name).toBe('a');
    const split = fake({ a: 'yes', b: 'yes', c: 'no', big: 'no' });
    expect((await split.serve(vote)).name).toBe('big');
    expect(split.reasons[0]).toBe('vote: a and b and c disagree; escalated to big');
    const gate = fake({ a: 'x', b: 'y', big: 'x' });
    expect((await gate.serve({ kind: 'gate', a: 'a', b: 'b' })).name).toBe('big');
  });
});

describe('policy names', () => {
  it('round-trip through their keys, model names with slashes, dots and efforts included', async () => {
    const { parsePolicy, policyKey, primaryModel } = await import('../optimizer/policies.ts');
    for (const key of ['model:meta/llama-2-70b', 'verify:o4-mini@low', 'gate:a/b+c.d', 'confirm:zero-one-ai/Yi-34B<mistralai/mixtral-8x7b,gpt-3.5', 'vote:a+b/c+d@low']) {
      expect(policyKey(parsePolicy(key))).toBe(key);
    }
    expect(primaryModel(parsePolicy('confirm:p<h1,h2'))).toBe('p');
    expect(primaryModel(parsePolicy('vote:a+b+c'))).toBe('a');
  });
});
