// Whether a step's questions are a choice between two answers (a two-way question: which of two
// names, true or false, A or B), read from the answers its probes kept. There, an answer that
// differs from a wrong baseline answer is the right one; elsewhere an outcome cannot say whether it
// is (one of several wrong choices, or a free-form answer), and it is counted half-way.
import type { Probe } from './evidence-types.ts';
import { baseKey, keyOf, runsLong } from './stored-probe.ts';

/** Answers a step must have shown before its choices are read. */
const MIN_CHOICE_ANSWERS = 30;
/** The share of the step's answers its two most common must make up for its questions to be two-way (a stray answer now and then aside). */
const TWO_WAY_COVER = 0.97;

/** A step's two answers (their agreement keys) where its questions are two-way; else null. */
export type TwoWay = readonly [string, string] | null;

export function twoWayChoices(probes: readonly Probe[]): TwoWay {
  const counts = new Map<string, number>();
  let n = 0;
  for (const p of probes) {
    const answers = Object.values(p.answers);
    n += 1 + answers.length;
    // a request whose baseline answer runs long (code, prose) asks for no choice: its answers count against the two, unkeyed
    if (p.baselineLong ?? runsLong(p.baselineText ?? '')) continue;
    for (const k of [baseKey(p), ...answers.map(keyOf)]) counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  if (n < MIN_CHOICE_ANSWERS) return null;
  const [a, b] = [...counts].sort((x, y) => y[1] - x[1]);
  // short answers only: a long one is keyed by its hash (`answerKey`), and two of those are no choice
  if (!a || !b || !a[0].startsWith('=') || !b[0].startsWith('=')) return null;
  return a[1] + b[1] >= TWO_WAY_COVER * n ? [a[0], b[0]] : null;
}
