// Drift on the policy a step serves (drift.ts): its recent grades falling clearly under the bar
// re-open the step, whether or not the step had settled, and for a side of a mix as for a policy alone.
import { describe, expect, it } from 'vitest';
import { servesNow, watchDrift } from './drift.ts';
import { newStepState } from './step-state.ts';

const step = { accountId: 'acct', workflowId: 'wf', fingerprint: 'drift', label: 'drift', release: '' };

/** A step serving `chosen`, its baseline's outcomes at 0.9, and the index of the first of `policy`'s outcomes (40 right, then wrong) that raises drift. */
function driftAfter(chosen: string, policy: string, settled: boolean): number | null {
  const s = newStepState(step, Date.now());
  s.chosen = chosen;
  s.settled = settled;
  for (let i = 0; i < 40; i++) s.evidence.addServed({ at: Date.now(), policy: 'model:big', score: i % 10 === 0 ? 0 : 1, source: 'outcome' }, true);
  for (let i = 0; i < 80; i++) {
    const sample = { at: Date.now(), policy, score: i < 40 ? 1 : 0, source: 'outcome' as const };
    s.evidence.addServed(sample, false);
    const event = watchDrift(s, step, sample, false, 0.95);
    if (event) {
      expect(event.kind).toBe('drift');
      expect(s.drifted).toEqual(['small']);
      return i;
    }
  }
  return null;
}

describe('drift', () => {
  it('is raised on the policy a step serves, settled or still trying cheaper candidates by serving them', () => {
    const settled = driftAfter('model:small', 'model:small', true);
    expect(settled).not.toBeNull();
    expect(settled!).toBeLessThan(50); // a run of failures its own record makes all but impossible
    expect(driftAfter('model:small', 'model:small', false)).toBe(settled);
  });

  it('is raised on a side of the mix the step serves, and never on a policy it does not serve', () => {
    expect(driftAfter('mix:model:small@0.40|model:big', 'model:small', false)).not.toBeNull();
    expect(driftAfter('mix:model:tiny@0.40|model:small', 'model:small', false)).not.toBeNull();
    expect(driftAfter('model:tiny', 'model:small', false)).toBeNull(); // a trial's grades are its evidence, not drift
  });

  it("reads a mix's sides from its key", () => {
    expect(servesNow('mix:gate:a+b@0.66|model:big', 'gate:a+b')).toBe(true);
    expect(servesNow('mix:gate:a+b@0.66|model:big', 'model:big')).toBe(true);
    expect(servesNow('mix:gate:a+b@0.66|model:big', 'model:a')).toBe(false);
    expect(servesNow('model:a', 'model:a')).toBe(true);
  });
});
