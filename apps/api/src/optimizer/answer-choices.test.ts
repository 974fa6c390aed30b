import { describe, expect, it } from 'vitest';
import { twoWayChoices } from './answer-choices.ts';
import type { Probe } from './evidence-types.ts';

const probe = (base: string, answer: string): Probe => ({ at: 0, policy: 'model:small', baselineScore: null, baselineText: base, baselineCostMicros: 1, answers: { small: { text: answer, score: null, costMicros: 1 } } });
const many = (n: number, f: (i: number) => [string, string]) => Array.from({ length: n }, (_, i) => probe(...f(i)));

describe("a step's two-way questions", () => {
  it('are read where nearly every answer is one of two, a stray answer aside', () => {
    const two = twoWayChoices(many(40, (i) => [i % 3 ? 'A' : 'B', i % 4 ? 'B' : 'A']));
    expect(two).toHaveLength(2);
    expect(new Set(two)).toEqual(new Set(['=A', '=B']));
    expect(twoWayChoices([...many(60, (i) => [i % 2 ? 'Rachel' : 'Randy', 'Randy']), probe('Rachel', 'I cannot tell.')])).not.toBeNull();
  });

  it('are not read from a few answers, from three choices or more, or from free-form answers', () => {
    expect(twoWayChoices(many(10, (i) => [i % 2 ? 'A' : 'B', 'A']))).toBeNull();
    expect(twoWayChoices(many(40, (i) => ['ABCD'[i % 4]!, 'ABCD'[(i + 1) % 4]!]))).toBeNull();
    expect(twoWayChoices(many(40, (i) => [i % 10 ? 'A' : 'C', i % 7 ? 'B' : 'D']))).toBeNull();
    const code = (i: number) => `def f(xs):\n    return xs[${i % 2}]`;
    expect(twoWayChoices(many(40, (i) => [code(i), code(i + 1)]))).toBeNull();
  });
});
