// A new user's first hour: sixty annotated calls on one step through the official
// `openai` SDK, each followed by an outcome. Learning must not cost more than the
// baseline would have (issue 32: at most 1.0x; trials that serve a cheaper model pay for the
// learning), and every call says why it did or did not explore.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed } from './support/gateway.ts';
import { routeOnMockOpenAI, startRig, type Rig } from './support/vendor.ts';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig({ env: { CIRCUIT_FAILURES: '1000' } });
  expect((await routeOnMockOpenAI(rig, { quality_floor: 0.95 })).status).toBe(200);
  // every model answers alike; a judge call (the same mock) would grade it 1
  rig.vendor.script({ content: '{"score": 1, "reason": "correct"}', usage: { prompt_tokens: 400, completion_tokens: 20 } });
});
afterAll(async () => {
  await rig.close();
});

interface CallView {
  id: string;
  cost: { baseline: number; actual: number; exploration: number };
  reasons: string[];
}

describe('the first hour', () => {
  it('spends at most the baseline over 60 calls with outcomes, and says on every call why it explored or not', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) {
      const { data, response } = await rig.client.chat.completions
        .create({ model: 'auto', messages: [{ role: 'user', content: `Classify support ticket #${i}: "my invoice is wrong"` }], optimizer: { run: { id: `run-${i}`, is_start: true }, step: { id: 'triage' } } } as never)
        .withResponse();
      expect(data.choices[0]!.message.content).toBeTruthy();
      ids.push(response.headers.get('x-optimizer-call-id')!);
      const outcome = await fetch(`${rig.gw.url}/v1/outcomes`, { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify({ run_id: `run-${i}`, step_id: 'triage', signals: { score: 1 } }) });
      expect(outcome.status).toBe(202);
    }
    const listed = (await (await fetch(`${rig.gw.url}/v1/calls?limit=100`, { headers: authed(rig.tenant.api_key) })).json()) as { data: CallView[] };
    const calls = listed.data.filter((c) => ids.includes(c.id));
    expect(calls).toHaveLength(60);
    const baseline = calls.reduce((a, c) => a + c.cost.baseline, 0);
    const actual = calls.reduce((a, c) => a + c.cost.actual, 0);
    expect(baseline).toBeGreaterThan(0);
    expect(actual).toBeLessThanOrEqual(1.0 * baseline);
    for (const c of calls) {
      const why = c.reasons.filter((r) => /^(explored: probed \S+ (for \d+% of calls beside the baseline )?\(payback [\d.]+×, rate [\d.]+\)|no probe: .+)$/.test(r));
      expect(why, JSON.stringify(c.reasons)).toHaveLength(1);
      // a call that explored says so, and one that did not spent nothing on it (unless it says it measured the cheap judge)
      if (why[0]!.startsWith('no probe') && !c.reasons.some((r) => r.startsWith('judge measure:'))) expect(c.cost.exploration).toBe(0);
      else expect(c.cost.exploration).toBeGreaterThan(0);
    }
    // the step's view shows what exploring has cost it, against what it would have cost on the baseline
    const steps = (await (await fetch(`${rig.gw.url}/v1/workflows/${rig.tenant.workflow_id}/steps`, { headers: authed(rig.tenant.api_key) })).json()) as { data: { label: string; exploration: { calls: number; share_of_baseline: number } }[] };
    const triage = steps.data.find((s) => s.label === 'triage')!;
    expect(triage.exploration.calls).toBe(60);
    expect(triage.exploration.share_of_baseline).toBeLessThanOrEqual(0.05);
  });
});
