// Discovery mode (spec 3, 4.6): the flag read back, the credit and the discovery
// condition, the state derived at read time as steps settle, and the report with
// priced deltas and reachability. Steps settle through the public API against a mock
// vendor whose models all agree.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed } from './support/gateway.ts';
import type { Rig } from './support/vendor.ts';
import { costMicros } from '../src/wire/usage.ts';
import { learnStep, startLearningRig } from './support/optimizer.ts';

let rig: Rig;
let stranger: { api_key: string };
beforeAll(async () => {
  ({ rig, stranger } = await startLearningRig());
});
afterAll(async () => {
  await rig.close();
});

async function ask(step: string, i: number) {
  const r = await fetch(`${rig.gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: authed(rig.tenant.api_key),
    body: JSON.stringify({ model: 'auto', messages: [{ role: 'user', content: `classify ticket ${i}` }], optimizer: { run: { id: `run-${step}-${i}` }, step: { id: step } } }),
  });
  expect(r.status).toBe(200);
}

async function call(method: string, path: string, body?: unknown, key = rig.tenant.api_key) {
  const r = await fetch(`${rig.gw.url}${path}`, { method, headers: authed(key), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: r.status, body: (await r.json()) as any };
}

const wf = () => rig.tenant.workflow_id;
const discovery = async (id = wf()) => (await call('GET', `/v1/proxy-agents/${id}/discovery`)).body;

describe('the discovery flag', () => {
  it('reads back what was written, starts off with a 5 USD credit, and shows on the agent list', async () => {
    expect(await discovery()).toMatchObject({ enabled: false, state: 'discovering', credit: { granted_usd: 5, used_usd: 0, remaining_usd: 5 }, steps: [] });
    const put = await call('PUT', `/v1/proxy-agents/${wf()}/discovery`, { enabled: true });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ enabled: true });
    expect(await discovery()).toMatchObject({ enabled: true, credit: { remaining_usd: 5 } });
    const agents = (await call('GET', '/v1/agents')).body.data as any[];
    expect(agents.find((a) => a.id === wf())).toMatchObject({ discovery_enabled: true });
    for (const body of [{ enabled: 'yes' }, { enabled: true, credit: 100 }, {}]) {
      expect((await call('PUT', `/v1/proxy-agents/${wf()}/discovery`, body)).status, JSON.stringify(body)).toBe(422);
    }
    expect((await discovery()).enabled).toBe(true);
  });

  it('discovers only when the flag is on, the request asks and credit remains; exploration spend draws the credit down', async () => {
    const agent = (await call('POST', '/v1/agents', { name: 'credit' })).body as { id: string };
    const d = rig.gw.services.discovery;
    const asks = () => [d.isDiscovering(agent.id, 'auto', undefined), d.isDiscovering(agent.id, 'discover', undefined), d.isDiscovering(agent.id, 'gpt-4.1', { step: { mode: 'discover' } })];
    expect(asks()).toEqual([false, false, false]); // flag off
    d.charge(agent.id, 1_000_000); // no draw while off
    await call('PUT', `/v1/proxy-agents/${agent.id}/discovery`, { enabled: true });
    expect(asks()).toEqual([true, true, true]);
    expect(d.isDiscovering(agent.id, 'gpt-4.1', undefined)).toBe(false); // a pinned call that does not ask
    d.charge(agent.id, 3_250_000);
    expect((await discovery(agent.id)).credit).toEqual({ granted_usd: 5, used_usd: 3.25, remaining_usd: 1.75 });
    d.charge(agent.id, 1_750_000);
    expect(asks()).toEqual([false, false, false]); // credit spent
    expect((await discovery(agent.id)).credit).toEqual({ granted_usd: 5, used_usd: 5, remaining_usd: 0 });
    await call('PUT', `/v1/proxy-agents/${agent.id}/discovery`, { enabled: false });
    await call('PUT', `/v1/proxy-agents/${agent.id}/discovery`, { enabled: true });
    expect(asks()).toEqual([false, false, false]); // re-enabling does not refill the credit
  });
});

describe('the discovery state and report', () => {
  /** Calls the first test made on `classify`: as many as the step took to settle, so not a constant. */
  let classifyCalls = 0;
  it('is discovering until every seen step settles, then optimized, and discovering again when a new step is seen', async () => {
    await ask('classify', 0);
    const first = await discovery();
    expect(first.state).toBe('discovering');
    expect(first.steps).toMatchObject([{ label: 'classify', calls: 1, settled: false }]);
    const n = await learnStep(rig, 'classify', (i) => ask('classify', i), 1, 124);
    const settled = await discovery();
    expect(settled.state).toBe('optimized');
    expect(settled.steps).toMatchObject([{ label: 'classify', calls: n + 1, settled: true }]);
    classifyCalls = n + 1;
    expect(settled.steps[0].chosen).not.toBe('model:gpt-4.1');
    await ask('summarize', 0);
    const reopened = await discovery();
    expect(reopened.state).toBe('discovering');
    expect(reopened.steps.map((s: any) => [s.label, s.settled])).toEqual([
      ['classify', true],
      ['summarize', false],
    ]);
  }, 90_000); // a step learns over up to 125 calls, each with its probes and grades: a slow machine needs more than the default

  it("reports each step's settled answer with priced deltas per 1k calls and per month, and that the current keys reach it", async () => {
    const r = await call('GET', `/v1/proxy-agents/${wf()}/discovery/report`);
    expect(r.status).toBe(200);
    const report = r.body;
    expect(report).toMatchObject({ agent: wf(), state: 'discovering' });
    const classify = report.steps.find((s: any) => s.label === 'classify');
    expect(classify).toMatchObject({ settled: true, baseline: { model: 'gpt-4.1' }, reachable: true, providers: [{ provider: 'openai', reachable: true, via: 'platform_key' }] });
    expect(classify.chosen.policy).toBe((await discovery()).steps[0].chosen);
    expect(classify.chosen.models.length).toBeGreaterThan(0);
    // the baseline priced from the catalog on the step's average call
    const { prompt_tokens, completion_tokens, cached_tokens } = classify.cost.per_call;
    expect(prompt_tokens).toBeGreaterThan(0);
    const usage = { promptTokens: prompt_tokens, completionTokens: completion_tokens, cachedTokens: cached_tokens, cacheWriteTokens: 0, reasoningTokens: 0, estimated: false };
    const perCall = costMicros(rig.gw.services.catalog.get('gpt-4.1'), usage);
    const k = classify.cost.per_1k_calls;
    expect(k.baseline_usd).toBeCloseTo((perCall * 1000) / 1e6, 2);
    expect(k.chosen_usd).toBeGreaterThan(0);
    expect(k.chosen_usd).toBeLessThan(k.baseline_usd);
    expect(k.saving_usd).toBeCloseTo(k.baseline_usd - k.chosen_usd, 5);
    // per month at the observed volume: calls over the time since first seen
    expect(classify.observed.calls).toBe(classifyCalls);
    expect(classify.observed.calls_per_month).toBeGreaterThan(0);
    const m = classify.cost.per_month;
    expect(m.baseline_usd).toBeCloseTo((k.baseline_usd * classify.observed.calls_per_month) / 1000, 0);
    expect(m.saving_usd).toBeGreaterThan(0);
    // an unsettled step is reported on the baseline, no delta yet
    const summarize = report.steps.find((s: any) => s.label === 'summarize');
    expect(summarize).toMatchObject({ settled: false, chosen: { policy: 'model:gpt-4.1' }, reachable: true });
    expect(summarize.cost.per_1k_calls.saving_usd).toBe(0);
    expect(report.totals.per_month.saving_usd).toBeCloseTo(m.saving_usd, 4);
  });

  it("judges reachability by the tenant's current keys: a provider without a platform key needs a stored key", async () => {
    const d = rig.gw.services.discovery;
    expect(d.reach(rig.tenant.account_id, 'anthropic')).toEqual({ provider: 'anthropic', reachable: false, via: null });
    const put = await call('PUT', '/v1/settings/provider-keys/anthropic', { key: 'sk-ant-test-key-0123456789' });
    expect(put.status).toBe(200);
    expect(d.reach(rig.tenant.account_id, 'anthropic')).toEqual({ provider: 'anthropic', reachable: true, via: 'stored_key' });
    expect(d.reach(rig.tenant.account_id, 'no-such-provider')).toMatchObject({ reachable: false });
  });
});

describe('tenancy', () => {
  it("answers 404 for another tenant's agent on every discovery route, and leaves its flag alone", async () => {
    for (const [method, path, body] of [
      ['GET', `/v1/proxy-agents/${wf()}/discovery`],
      ['PUT', `/v1/proxy-agents/${wf()}/discovery`, { enabled: false }],
      ['GET', `/v1/proxy-agents/${wf()}/discovery/report`],
    ] as [string, string, unknown?][]) {
      expect((await call(method, path, body, stranger.api_key)).status, `${method} ${path}`).toBe(404);
    }
    expect((await call('GET', '/v1/proxy-agents/wf_nope/discovery')).status).toBe(404);
    expect((await discovery()).enabled).toBe(true);
  });
});
