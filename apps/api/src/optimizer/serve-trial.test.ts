// Trials on a step whose calls get no outcomes (serve-trial.ts, `silentTrials`): a trial there
// teaches only if its answer is graded after it is sent, so it is graded while the step's learning
// room pays for it; past that, only a candidate with graded evidence is tried ungraded, and its
// trials stay within twice its graded samples.
import { describe, expect, it } from 'vitest';
import type { PolicyStats } from './evidence.ts';
import { silentTrials, UNGRADED_AFTER } from './serve-trial.ts';
import { newLedger, spend } from './trials.ts';

const stats = (n: number): PolicyStats => ({ n, retention: 1, lcb: 0.9, ucb: 1.1, costMicros: 10, costUcbMicros: 12 });
const model = { kind: 'model' as const, model: 'cheap' };
const gate = { kind: 'gate' as const, a: 'cheap', b: 'other' };

describe('trials where no outcomes come', () => {
  it("grade the trial's answer while the step's learning room pays for the side call and the grades", () => {
    const ledger = newLedger();
    expect(silentTrials(500, 400, ledger).grade).toBe(true);
    expect(silentTrials(300, 400, ledger).grade).toBe(false);
    // graded, a candidate with no evidence yet may be tried: its grade is its evidence
    expect(silentTrials(500, 400, ledger).allow(model, stats(0))).toBe(true);
  });

  it('try a candidate ungraded only on graded evidence of its own, and never more than twice its samples', () => {
    const ledger = newLedger();
    const spent = silentTrials(0, 400, ledger);
    expect(spent.allow(model, stats(0))).toBe(false); // its posterior would be its prior alone
    expect(spent.allow(model, stats(UNGRADED_AFTER - 1))).toBe(false);
    expect(spent.allow(model, stats(UNGRADED_AFTER))).toBe(true);
    for (let i = 0; i < 2 * UNGRADED_AFTER; i++) spend(ledger, 'model:cheap');
    expect(silentTrials(0, 400, ledger).allow(model, stats(UNGRADED_AFTER))).toBe(false);
    expect(silentTrials(0, 400, ledger).allow(model, stats(UNGRADED_AFTER + 1))).toBe(true);
  });

  it("never try a gate: its two answers are not kept with the call, so its trial could not be graded", () => {
    expect(silentTrials(1e9, 1, newLedger()).allow(gate, stats(100))).toBe(false);
  });
});
