// How client signals become one score: hard failures score 0, soft failures (an edit, a retry) at most a half.
import { describe, expect, it } from 'vitest';
import { MAX_CALLS_PER_RUN_STEP, Outcomes, PEER_FLUSH_WAITS, scoreOf, SOFT_FAILURE_SCORE } from './outcomes.ts';

describe('scoreOf', () => {
  it('lowers a retried call to a soft failure, whatever else it says short of a hard failure', () => {
    expect(scoreOf({ retried: false })).toBe(1);
    expect(scoreOf({ retried: true })).toBe(SOFT_FAILURE_SCORE);
    expect(scoreOf({ retried: true, score: 0.9 })).toBe(SOFT_FAILURE_SCORE);
    expect(scoreOf({ retried: true, score: 0.2 })).toBe(0.2);
    expect(scoreOf({ retried: true, human_verdict: 'accepted' })).toBe(SOFT_FAILURE_SCORE);
    expect(scoreOf({ retried: true, schema_valid: false })).toBe(0);
    expect(scoreOf({ retried: true, human_verdict: 'edited', score: 0.4 })).toBe(0.4);
  });

  it('keeps what it said before for the other signals', () => {
    expect(scoreOf({ score: 0.8 })).toBe(0.8);
    expect(scoreOf({ human_verdict: 'edited' })).toBe(0.5);
    expect(scoreOf({ human_verdict: 'edited', score: 0.9 })).toBe(0.5);
    expect(scoreOf({ run_completed: false, score: 1 })).toBe(0);
    expect(scoreOf({ tool_executed: true })).toBe(1);
  });
});

// What the gateway remembers of runs for the outcomes that may follow: bounded per run step
// and in all, newest kept.
function remembering(graded: string[]) {
  const optimizer = { recordServed: (_step: unknown, sample: { policy: string }) => (graded.push(sample.policy), { row: {}, events: [] }) };
  const meter = { recordLearning: () => undefined, flush: async () => undefined };
  return new Outcomes({} as never, meter as never, optimizer as never, {} as never);
}

const step = { accountId: 'acct', workflowId: 'wf', fingerprint: 'fp', label: 'plan', release: '' };

describe('remembered run calls', () => {
  it('grades the newest calls of a run step, at most a bounded number however often the run id comes back', async () => {
    const graded: string[] = [];
    const o = remembering(graded);
    const total = MAX_CALLS_PER_RUN_STEP * 3;
    for (let i = 0; i < total; i++) o.remember('acct', 'run-1', 'plan', { callId: `call-${i}`, step, policy: `model:m${i}`, baseline: 'big', floor: 0.95 });
    const r = await o.report('acct', 'wf', { run_id: 'run-1', step_id: 'plan', signals: { score: 1 } });
    expect(r.calls).toHaveLength(MAX_CALLS_PER_RUN_STEP);
    expect(r.calls.at(-1)).toBe(`call-${total - 1}`);
    expect(r.calls[0]).toBe(`call-${total - MAX_CALLS_PER_RUN_STEP}`);
    expect(graded).toHaveLength(MAX_CALLS_PER_RUN_STEP);
  });
});

// Behind a balancer, a client's outcome can reach another replica than the one that served
// its call, before that replica has written the call to the shared database: the outcome
// looks again for a few of the replicas' flush intervals instead of answering 404.
const row = { id: 'call-1', workflow_id: 'wf', detail: { optimizer: { fingerprint: 'fp', step: 'plan', policy: 'model:m', baseline: 'big' } } };

/** A database whose call_records hold the call from the `visibleFrom`-th lookup on (the other replica's flush). */
function withPeers(visibleFrom: number, peerFlushMs: number) {
  let lookups = 0;
  const db = { em: () => ({ getConnection: () => ({ execute: async () => (++lookups >= visibleFrom ? [row] : []) }) }) };
  const optimizer = { recordServed: () => ({ row: {}, events: [] }) };
  const meter = { recordLearning: () => undefined, flush: async () => undefined };
  return { o: new Outcomes(db as never, meter as never, optimizer as never, {} as never, peerFlushMs), lookups: () => lookups };
}

const report = { run_id: 'run-1', step_id: 'plan', signals: { score: 1 } };

describe('outcomes for calls another replica served', () => {
  it('finds a call that reaches the shared database after the outcome arrived', async () => {
    const { o, lookups } = withPeers(3, 10);
    const r = await o.report('acct', 'wf', report);
    expect(r.calls).toEqual(['call-1']);
    expect(lookups()).toBe(3);
  });

  it('still answers 404 for a run nobody served, after a bounded wait', async () => {
    const { o, lookups } = withPeers(Number.POSITIVE_INFINITY, 10);
    await expect(o.report('acct', 'wf', report)).rejects.toMatchObject({ code: 'not_found' });
    expect(lookups()).toBe(1 + PEER_FLUSH_WAITS);
  });

  it('does not wait without replicas (an embedded database has no peers)', async () => {
    const { o, lookups } = withPeers(2, 0);
    await expect(o.report('acct', 'wf', report)).rejects.toMatchObject({ code: 'not_found' });
    expect(lookups()).toBe(1);
  });
});
