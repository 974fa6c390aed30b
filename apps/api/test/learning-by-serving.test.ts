// Learning by serving (routing settings `learning_mode: serve`, the default): on a step whose
// cheaper candidates answer as well as the baseline, unproven candidates are tried on a share
// of the calls within the quality-risk budget (the header `x-optimizer-trial` names them), the
// clients' outcomes on those calls prove one, and by call 200 a proven cheaper policy serves
// most calls and says why. The whole stretch, trials and learning included, costs less than the
// baseline would have. `shadow` never serves an unproven candidate; `off` learns nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed } from './support/gateway.ts';
import { routeOnMockOpenAI, startRig, type Rig } from './support/vendor.ts';
import { explorationOf } from './support/optimizer.ts';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig({ env: { CIRCUIT_FAILURES: '1000' } });
  // every model answers alike; a judge call (the same mock) would grade it 1
  rig.vendor.script({ content: '{"score": 1, "reason": "correct"}', usage: { prompt_tokens: 400, completion_tokens: 20 } });
});
afterAll(async () => {
  await rig.close();
});

interface Served {
  id: string;
  model: string | null;
  trial: string | null;
}

async function call(step: string, i: number, outcome: boolean): Promise<Served> {
  const { response } = await rig.client.chat.completions
    .create({ model: 'auto', messages: [{ role: 'user', content: `Route ticket #${i} of ${step}: "my invoice is wrong"` }], optimizer: { run: { id: `${step}-${i}`, is_start: true }, step: { id: step } } } as never)
    .withResponse();
  if (outcome) {
    const r = await fetch(`${rig.gw.url}/v1/outcomes`, { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify({ run_id: `${step}-${i}`, step_id: step, signals: { score: 1 } }) });
    expect(r.status).toBe(202);
  }
  return { id: response.headers.get('x-optimizer-call-id')!, model: response.headers.get('x-optimizer-model'), trial: response.headers.get('x-optimizer-trial') };
}

interface CallView {
  id: string;
  cost: { baseline: number; actual: number };
  reasons: string[];
}

async function calls(ids: string[]): Promise<CallView[]> {
  const page = (await (await fetch(`${rig.gw.url}/v1/calls?limit=500`, { headers: authed(rig.tenant.api_key) })).json()) as { data: CallView[] };
  return page.data.filter((c) => ids.includes(c.id));
}

describe('learning by serving', () => {
  it('tries cheaper candidates within the risk budget, proves one from outcomes, and serves it on most calls by call 200', { timeout: 120_000 }, async () => {
    expect((await routeOnMockOpenAI(rig, { quality_floor: 0.95 })).status).toBe(200);
    const served: Served[] = [];
    for (let i = 0; i < 200; i++) served.push(await call('triage', i, true));
    await rig.gw.learned();
    await rig.gw.services.meter.flush();
    const trials = served.filter((s) => s.trial !== null);
    // trials came, and none before the step had earned a margin over the floor
    expect(trials.length).toBeGreaterThan(5);
    expect(served.slice(0, 5).every((s) => s.trial === null)).toBe(true);
    // by the last quarter, a proven cheaper policy (no trial header, not the baseline) serves most calls
    const late = served.slice(150);
    const proven = late.filter((s) => s.trial === null && s.model !== 'gpt-4.1');
    expect(proven.length).toBeGreaterThan(late.length / 2);
    const records = await calls(served.map((s) => s.id));
    expect(records).toHaveLength(200);
    const byId = new Map(records.map((r) => [r.id, r]));
    // a proven call says the policy holds the bar on its samples; a trial says it is one, and what of the budget it uses
    expect(byId.get(proven.at(-1)!.id)!.reasons[0]).toMatch(/^routed to .+: holds [\d.]+ ≥ 0.95 of the baseline's quality on \d+ samples$/);
    const aTrial = byId.get(trials[0]!.id)!;
    expect(aTrial.reasons[0]).toMatch(/^served .+ to learn: unproven \(retention [\d.]+ ± [\d.]+, \d+ samples\), (drawn to hold 0.95( in a mix with what serves, on \d+% of calls)?|one of its first \d+ trials) at \d+% of the baseline's cost; risk budget \d+% used$/);
    // the whole stretch, trials and learning included, costs less than the baseline would have
    const baseline = records.reduce((a, c) => a + c.cost.baseline, 0);
    const actual = records.reduce((a, c) => a + c.cost.actual, 0);
    expect(actual).toBeLessThan(baseline);
    // the step view shows the budget and the trials
    const steps = (await (await fetch(`${rig.gw.url}/v1/workflows/${rig.tenant.workflow_id}/steps`, { headers: authed(rig.tenant.api_key) })).json()) as { data: { label: string; learning: { risk_budget: number; risk_used: number; trials: Record<string, number> } }[] };
    const learning = steps.data.find((s) => s.label === 'triage')!.learning;
    expect(Object.values(learning.trials).reduce((a, b) => a + b, 0)).toBe(trials.length);
    expect(learning.risk_used).toBeGreaterThanOrEqual(0);
    expect(learning.risk_used).toBeLessThanOrEqual(1);
  });

  it("grades trials after the answer on a step whose calls get no outcomes: the baseline answers beside them, metered as the call's exploration", { timeout: 60_000 }, async () => {
    expect((await routeOnMockOpenAI(rig, { quality_floor: 0.95 })).status).toBe(200);
    const silent: Served[] = [];
    for (let i = 0; i < 120; i++) silent.push(await call('silent', i, false));
    await rig.gw.learned();
    await rig.gw.services.meter.flush();
    // once the step knows no outcome comes (after 20 calls), its trials go on, graded after the answer
    const late = silent.slice(25).filter((s) => s.trial !== null);
    expect(late.length).toBeGreaterThan(0);
    const records = await calls(late.map((s) => s.id));
    const graded = records.filter((r) => r.reasons.some((x) => /^no outcomes come on this step: after the answer, the baseline answers the same request/.test(x)));
    expect(graded.length).toBeGreaterThan(0);
    // the side call (and any grade) is the call's exploration: it ran after the answer, on that call
    for (const r of graded) expect(await explorationOf(rig, r.id)).toBeGreaterThan(0);
    // and it is the candidate's evidence: the step view counts its samples
    const steps = (await (await fetch(`${rig.gw.url}/v1/workflows/${rig.tenant.workflow_id}/steps`, { headers: authed(rig.tenant.api_key) })).json()) as { data: { label: string; candidates: { policy: string; n: number }[] }[] };
    const view = steps.data.find((s) => s.label === 'silent')!;
    const tried = new Set(late.map((s) => s.trial!));
    expect(view.candidates.filter((c) => tried.has(c.policy)).reduce((a, c) => a + c.n, 0)).toBeGreaterThanOrEqual(graded.length);
  });

  it('never serves an unproven candidate under shadow, and learns nothing under off (set per step in the annotation too)', { timeout: 60_000 }, async () => {
    expect((await routeOnMockOpenAI(rig, { quality_floor: 0.95, learning_mode: 'shadow' })).status).toBe(200);
    const shadow: Served[] = [];
    for (let i = 0; i < 60; i++) shadow.push(await call('shadowed', i, true));
    expect(shadow.every((s) => s.trial === null && s.model === 'gpt-4.1')).toBe(true);
    // the tenant serves; one step's annotation turns its learning off
    expect((await routeOnMockOpenAI(rig, { quality_floor: 0.95 })).status).toBe(200);
    rig.vendor.reset();
    rig.vendor.script({ content: '{"score": 1, "reason": "correct"}', usage: { prompt_tokens: 400, completion_tokens: 20 } });
    const off: Served[] = [];
    for (let i = 0; i < 40; i++) {
      const { response } = await rig.client.chat.completions
        .create({ model: 'auto', messages: [{ role: 'user', content: `Quiet #${i}` }], optimizer: { step: { id: 'quiet', learning_mode: 'off' } } } as never)
        .withResponse();
      off.push({ id: response.headers.get('x-optimizer-call-id')!, model: response.headers.get('x-optimizer-model'), trial: response.headers.get('x-optimizer-trial') });
    }
    await rig.gw.learned();
    expect(off.every((s) => s.trial === null && s.model === 'gpt-4.1')).toBe(true);
    expect(rig.vendor.requests).toHaveLength(40); // no probe, no judge
  });
});
