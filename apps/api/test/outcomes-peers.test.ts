// Behind a balancer, a client's outcome can reach another replica than the one that served
// its call, before that replica has written the call to the shared database: the outcome
// looks again for a few of the replicas' flush intervals instead of answering 404.
import { describe, expect, it } from 'vitest';
import { Outcomes, PEER_FLUSH_WAITS } from '../src/optimizer/outcomes.ts';

const row = { id: 'call-1', workflow_id: 'wf', detail: { optimizer: { fingerprint: 'fp', step: 'plan', policy: 'model:m', baseline: 'big' } } };

/** A database whose call_records hold the call from the `visibleFrom`-th lookup on (the other replica's flush). */
function outcomes(visibleFrom: number, peerFlushMs: number) {
  let lookups = 0;
  const db = { em: () => ({ getConnection: () => ({ execute: async () => (++lookups >= visibleFrom ? [row] : []) }) }) };
  const optimizer = { recordServed: () => ({ row: {}, events: [] }) };
  const meter = { recordLearning: () => undefined, flush: async () => undefined };
  return { o: new Outcomes(db as never, meter as never, optimizer as never, {} as never, peerFlushMs), lookups: () => lookups };
}

const report = { run_id: 'run-1', step_id: 'plan', signals: { score: 1 } };

describe('outcomes for calls another replica served', () => {
  it('finds a call that reaches the shared database after the outcome arrived', async () => {
    const { o, lookups } = outcomes(3, 10);
    const r = await o.report('acct', 'wf', report);
    expect(r.calls).toEqual(['call-1']);
    expect(lookups()).toBe(3);
  });

  it('still answers 404 for a run nobody served, after a bounded wait', async () => {
    const { o, lookups } = outcomes(Number.POSITIVE_INFINITY, 10);
    await expect(o.report('acct', 'wf', report)).rejects.toMatchObject({ code: 'not_found' });
    expect(lookups()).toBe(1 + PEER_FLUSH_WAITS);
  });

  it('does not wait without replicas (an embedded database has no peers)', async () => {
    const { o, lookups } = outcomes(2, 0);
    await expect(o.report('acct', 'wf', report)).rejects.toMatchObject({ code: 'not_found' });
    expect(lookups()).toBe(1);
  });
});
