// Outcomes reach a step the client never named: every routed (and annotated pinned) call's
// response names its step's fingerprint in `x-optimizer-step`, and POST /v1/outcomes accepts it
// as step_id, from memory or, after a restart's loss of memory, from the call records. A retried
// call scores as a soft failure.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Outcomes } from '../src/optimizer/outcomes.ts';
import { authed } from './support/gateway.ts';
import { routeOnMockOpenAI, startRig, type Rig } from './support/vendor.ts';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
  expect((await routeOnMockOpenAI(rig)).status).toBe(200);
});
afterAll(async () => {
  await rig.close();
});

async function call(model: string, run: string, content = 'summarise this ticket') {
  const r = await fetch(`${rig.gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify({ model, messages: [{ role: 'user', content }], optimizer: { run: { id: run } } }) });
  expect(r.status).toBe(200);
  return { id: r.headers.get('x-optimizer-call-id')!, step: r.headers.get('x-optimizer-step') };
}

const outcome = (run: string, step: string, signals: Record<string, unknown>) =>
  fetch(`${rig.gw.url}/v1/outcomes`, { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify({ run_id: run, step_id: step, signals }) });

describe('the fingerprint step', () => {
  it('is named by a routed call without step.id, and an outcome naming it reaches the call', async () => {
    const c = await call('auto', 'run-fp-1');
    expect(c.step).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const r = await outcome('run-fp-1', c.step!, { retried: true });
    expect(r.status).toBe(202);
    expect(await r.json()).toMatchObject({ step_id: c.step, score: 0.5, calls: [c.id] });
    // the same request shape is the same step
    expect((await call('auto', 'run-fp-2')).step).toBe(c.step);
  });

  it('is named by an annotated pinned call too', async () => {
    const c = await call('gpt-4o-mini', 'run-fp-3');
    expect(c.step).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const r = await outcome('run-fp-3', c.step!, { score: 1 });
    expect(await r.json()).toMatchObject({ score: 1, calls: [c.id] });
  });

  it('is found in the call records when the replica no longer remembers the run', async () => {
    const c = await call('auto', 'run-fp-4', 'a different shape of request entirely, so its own step');
    await rig.gw.services.meter.flush();
    // a replica that did not serve the call (a fresh one on the same database) remembers nothing of the run
    const s = rig.gw.services;
    const fresh = new Outcomes(s.db, s.meter, s.optimizer, s.answerCache);
    await expect(fresh.report(rig.tenant.account_id, rig.tenant.workflow_id, { run_id: 'run-fp-unknown', step_id: c.step!, signals: { score: 1 } })).rejects.toMatchObject({ code: 'not_found' });
    expect(await fresh.report(rig.tenant.account_id, rig.tenant.workflow_id, { run_id: 'run-fp-4', step_id: c.step!, signals: { retried: true, score: 0.3 } })).toMatchObject({ score: 0.3, calls: [c.id] });
  });
});
