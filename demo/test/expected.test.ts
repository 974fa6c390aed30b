// The expected retention the demo reports: each served call at its policy's mean over the step's recorded rows.
import { expect, it } from 'vitest';
import type { Row } from '../../bench/routing/data.ts';
import type { CallRecord } from '../../bench/routing/phases.ts';
import { expectedRetention, policyScore } from '../expected.ts';

const usage = { prompt_tokens: 1, completion_tokens: 1 };
const row = (id: string, base: [string, number], a: [string, number], b: [string, number]): Row => ({
  id,
  step: 's',
  split: 'train',
  messages: [],
  answers: { big: { text: base[0], score: base[1], usage }, a: { text: a[0], score: a[1], usage }, b: { text: b[0], score: b[1], usage } },
});
const rows = [row('1', ['yes', 1], ['yes', 1], ['Yes ', 1]), row('2', ['no', 1], ['yes', 0], ['no', 1]), row('3', ['no', 0], ['yes', 1], ['yes', 1]), row('4', ['yes', 1], ['no', 0], ['no', 0])];
const call = (policy: string | null, trial: string | null = null): CallRecord => ({ policy, trial, served: 'big', error: null }) as CallRecord;

it('scores a model by its answer, and a gate, a vote or a confirm by its first model’s where the others agree as the gateway reads agreement, else the baseline’s', () => {
  expect(rows.map((r) => policyScore(r, 'model:a', 'big'))).toEqual([1, 0, 1, 0]);
  // row 1: "yes" and "Yes " agree once normalized
  expect(rows.map((r) => policyScore(r, 'gate:a+b', 'big'))).toEqual([1, 1, 1, 0]);
  expect(rows.map((r) => policyScore(r, 'vote:a+b+big', 'big'))).toEqual([1, 1, 0, 1]);
  // confirmed by either: row 2's a is confirmed by neither b ("no") nor big ("no")
  expect(rows.map((r) => policyScore(r, 'confirm:a<b,big', 'big'))).toEqual([1, 1, 1, 0]);
});

it('scores a verify by its model’s answer where a judge that grades right passes it, else the baseline’s', () => {
  expect(rows.map((r) => policyScore(r, 'verify:a', 'big'))).toEqual([1, 1, 1, 1]);
  expect(policyScore(rows[0]!, 'model:absent', 'big')).toBeNull();
});

it('is each served call at its policy’s mean over the baseline’s mean, trials included, whatever the answers scored', () => {
  // baseline mean 0.75; model a 0.5; gate 0.75
  expect(expectedRetention([call('model:big'), call('model:big')], rows, 'big')).toBe(1);
  expect(expectedRetention([call('model:big'), call(null, 'model:a')], rows, 'big')).toBeCloseTo((0.75 + 0.5) / 1.5);
  expect(expectedRetention([call('model:a', 'gate:a+b')], rows, 'big')).toBeCloseTo(1);
  expect(expectedRetention([call('model:big'), { ...call('model:a'), error: 'x' }], rows, 'big')).toBe(1);
  expect(expectedRetention([call('model:absent')], rows, 'big')).toBeNull();
});
