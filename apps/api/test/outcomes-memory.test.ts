// What the gateway remembers of runs for the outcomes that may follow: bounded per run step
// and in all, newest kept.
import { describe, expect, it } from 'vitest';
import { MAX_CALLS_PER_RUN_STEP, Outcomes } from '../src/optimizer/outcomes.ts';

function outcomes(graded: string[]) {
  const optimizer = { recordServed: (_step: unknown, sample: { policy: string }) => (graded.push(sample.policy), { row: {}, events: [] }) };
  const meter = { recordLearning: () => undefined, flush: async () => undefined };
  return new Outcomes({} as never, meter as never, optimizer as never, {} as never);
}

const step = { accountId: 'acct', workflowId: 'wf', fingerprint: 'fp', label: 'plan', release: '' };

describe('remembered run calls', () => {
  it('grades the newest calls of a run step, at most a bounded number however often the run id comes back', async () => {
    const graded: string[] = [];
    const o = outcomes(graded);
    const total = MAX_CALLS_PER_RUN_STEP * 3;
    for (let i = 0; i < total; i++) o.remember('acct', 'run-1', 'plan', { callId: `call-${i}`, step, policy: `model:m${i}`, baseline: 'big', floor: 0.95 });
    const r = await o.report('acct', 'wf', { run_id: 'run-1', step_id: 'plan', signals: { score: 1 } });
    expect(r.calls).toHaveLength(MAX_CALLS_PER_RUN_STEP);
    expect(r.calls.at(-1)).toBe(`call-${total - 1}`);
    expect(r.calls[0]).toBe(`call-${total - MAX_CALLS_PER_RUN_STEP}`);
    expect(graded).toHaveLength(MAX_CALLS_PER_RUN_STEP);
  });
});
