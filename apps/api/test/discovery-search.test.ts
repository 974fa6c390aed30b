// Discovery mode searches (issue 34, acceptance 1): with the agent's flag on, each step probes
// its most promising candidate from its first calls, without waiting for the payback rule (a
// step of a dozen calls would never pay for a proof), paid from the discovery credit; each step
// settles, the agent reads `optimized` once all three have, and the report gives each step's
// answer with its priced delta. `model: "discover"` searches the same way. With the credit
// spent, nothing more is probed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed } from './support/gateway.ts';
import type { Rig } from './support/vendor.ts';
import { startLearningRig, stepView } from './support/optimizer.ts';

let rig: Rig;
beforeAll(async () => {
  ({ rig } = await startLearningRig());
});
afterAll(async () => {
  await rig.close();
});

async function call(method: string, path: string, body?: unknown) {
  const r = await fetch(`${rig.gw.url}${path}`, { method, headers: authed(rig.tenant.api_key), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: r.status, body: (await r.json()) as any };
}

async function ask(step: string, i: number, model = 'auto'): Promise<string[]> {
  const r = await fetch(`${rig.gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: authed(rig.tenant.api_key),
    body: JSON.stringify({ model, messages: [{ role: 'user', content: `classify ticket ${i} for ${step}` }], optimizer: { run: { id: `run-${step}-${i}` }, step: { id: step } } }),
  });
  expect(r.status).toBe(200);
  await rig.gw.learned();
  const id = r.headers.get('x-optimizer-call-id')!;
  return ((await call('GET', `/v1/calls/${id}`)).body as { reasons: string[] }).reasons;
}

const wf = () => rig.tenant.workflow_id;
const discovery = async () => (await call('GET', `/v1/proxy-agents/${wf()}/discovery`)).body;

async function settle(step: string, model = 'auto', max = 400): Promise<{ calls: number; first: string[] }> {
  const first = await ask(step, 0, model);
  let i = 1;
  while (i < max && !(await stepView(rig, step))?.settled) await ask(step, i++, model);
  return { calls: i, first };
}

describe('discovery mode', () => {
  it('searches each step from its first calls within the credit, settles all three, then reads optimized with a priced answer per step', { timeout: 240_000 }, async () => {
    expect((await call('PUT', `/v1/proxy-agents/${wf()}/discovery`, { enabled: true })).status).toBe(200);
    const steps = ['triage', 'summarize', 'extract'];
    for (const step of steps) {
      const { calls, first } = await settle(step);
      // the step's first call already probes: discovery does not wait for the payback rule
      expect(first.some((r) => r.startsWith('discovering: probed ')), first.join('\n')).toBe(true);
      expect(calls).toBeLessThan(400);
    }
    const view = await discovery();
    expect(view.state).toBe('optimized');
    expect(view.credit.used_usd).toBeGreaterThan(0);
    expect(view.credit.used_usd).toBeLessThanOrEqual(view.credit.granted_usd);
    const report = (await call('GET', `/v1/proxy-agents/${wf()}/discovery/report`)).body as { state: string; steps: { label: string; settled: boolean; chosen: { policy: string }; cost: { per_1k_calls: { baseline_usd: number; chosen_usd: number; saving_usd: number } } }[] };
    expect(report.state).toBe('optimized');
    for (const step of steps) {
      const row = report.steps.find((s) => s.label === step)!;
      expect(row, JSON.stringify(report)).toMatchObject({ settled: true });
      expect(row.chosen.policy).not.toBe('model:gpt-4.1');
      // its priced delta: what a thousand calls cost on the baseline and on the answer
      expect(row.cost.per_1k_calls.saving_usd).toBeGreaterThan(0);
      expect(row.cost.per_1k_calls.saving_usd).toBeCloseTo(row.cost.per_1k_calls.baseline_usd - row.cost.per_1k_calls.chosen_usd, 5);
    }
  });

  it('searches the same way for `model: "discover"`, and probes nothing once the credit is spent', { timeout: 120_000 }, async () => {
    const first = await ask('classify', 0, 'discover');
    expect(first.some((r) => r.startsWith('discovering: probed ')), first.join('\n')).toBe(true);
    // the credit is spent: the agent no longer discovers, and a step too young for the payback rule probes nothing
    rig.gw.services.discovery.charge(wf(), 10_000_000);
    const after = await ask('fresh-after-credit', 0, 'discover');
    expect(after.some((r) => r.startsWith('discovering:'))).toBe(false);
    expect(after.some((r) => r.startsWith('explored: probed'))).toBe(false);
  });
});
