import { expect, it } from 'vitest';
import { calibration, calibrationLine, MIN_SAMPLES } from './calibration.ts';
import type { Row } from './data.ts';
import type { WorkflowStep } from './gateway.ts';

const usage = { prompt_tokens: 1, completion_tokens: 1 };
// ten rows: the baseline right on all, `half` on the first five, `most` on the first eight
const rows: Row[] = Array.from({ length: 10 }, (_, i) => ({
  id: `r${i}`,
  step: 'a',
  split: 'train',
  messages: [],
  answers: { base: { text: 'x', score: 1, usage }, half: { text: 'y', score: i < 5 ? 1 : 0, usage }, most: { text: 'z', score: i < 8 ? 1 : 0, usage } },
}));
const cand = (policy: string, n: number, retention: number, lcb: number) => ({ policy, n, retention, lcb, cost_share: 0.1 });
const step = (candidates: ReturnType<typeof cand>[]): WorkflowStep => ({ label: 'a', settled: false, chosen: 'model:base', probes: 0, served: 0, candidates });

it('reads each model estimate in its own standard errors from the data’s truth on the rows the step saw', () => {
  // half: 0.7 with a standard error of 0.1 against a truth of 0.5 is 2 over; most: 0.75 at 0.05 against 0.8 is 1 under
  const c = calibration([step([cand('model:half', 40, 0.7, 0.6), cand('model:most', 30, 0.75, 0.7)])], new Map([['a', rows]]), 'base');
  expect(c.count).toBe(2);
  expect(c.mean_z).toBeCloseTo(0.5);
  expect(c.over).toBe(0.5);
  expect(c.under).toBe(0);
  expect(c.highest[0]).toMatchObject({ model: 'half', truth: 0.5, z: 2 });
  expect(calibrationLine('tuning', c)).toContain('furthest over: half on a 0.7 on 40 against 0.5 (z 2)');
});

it('leaves out gates, the baseline, thin estimates, bounds without width and steps it has no rows of', () => {
  const c = calibration(
    [step([cand('gate:half+most', 50, 1, 0.9), cand('model:base', 50, 1, 1), cand('model:half', MIN_SAMPLES - 1, 0.9, 0.5), cand('model:most', 50, 0.8, 0.8)]), { ...step([cand('model:half', 50, 0.5, 0.4)]), label: 'b' }],
    new Map([['a', rows]]),
    'base',
  );
  expect(c).toMatchObject({ count: 0, mean_z: null, sd_z: null, over: 0, under: 0, highest: [] });
  expect(calibrationLine('end', c)).toBe(`estimates against the data (end): none with ${MIN_SAMPLES} samples`);
});
