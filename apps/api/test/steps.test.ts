// The step registry, the calls behind a step, the workflow list's readiness and the
// agent graph, end to end against a mock vendor whose models all agree (so a step
// settles after enough probes).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed } from './support/gateway.ts';
import type { Rig } from './support/vendor.ts';
import { buildGraph } from '../src/reporting/graph.ts';
import { learnStep, startLearningRig } from './support/optimizer.ts';

let rig: Rig;
let stranger: { api_key: string };
beforeAll(async () => {
  ({ rig, stranger } = await startLearningRig());
});
afterAll(async () => {
  await rig.close();
});

async function ask(step: string, i: number, opts: { key?: string; run?: Record<string, unknown> } = {}) {
  const r = await fetch(`${rig.gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: authed(opts.key ?? rig.tenant.api_key),
    body: JSON.stringify({ model: 'auto', messages: [{ role: 'user', content: `classify ticket ${i}` }], optimizer: { run: opts.run ?? { id: `run-${step}-${i}` }, step: { id: step } } }),
  });
  expect(r.status).toBe(200);
  return r.headers.get('x-optimizer-model')!;
}

async function call(method: string, path: string, body?: unknown, key = rig.tenant.api_key) {
  const r = await fetch(`${rig.gw.url}${path}`, { method, headers: authed(key), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: r.status, body: (await r.json()) as any };
}

const wf = () => rig.tenant.workflow_id;
const steps = async () => (await call('GET', `/v1/workflows/${wf()}/steps`)).body.data as any[];
const workflow = async () => ((await call('GET', '/v1/workflows')).body.data as any[]).find((w) => w.id === wf());

describe('the step registry', () => {
  it('records each step it sees, and excluding the unsettled one makes the workflow ready until it is expected again', async () => {
    const n = await learnStep(rig, 'classify', (i) => ask('classify', i), 0, 125);
    await ask('summarize', 0);
    const [classify, summarize] = [(await steps()).find((s) => s.label === 'classify'), (await steps()).find((s) => s.label === 'summarize')];
    expect(classify).toMatchObject({ calls: n, excluded: false, expected: true, settled: true, last_seen_phase: 'tuning', phases: { tuning: { calls: n } } });
    expect(classify.chosen).toMatch(/^(model|gate|verify):/);
    expect(classify.probes).toBeGreaterThanOrEqual(20);
    expect(classify.exploration).toMatchObject({ calls: expect.any(Number), payback: expect.any(Number) });
    expect(classify.exploration.share_of_baseline).toBeLessThanOrEqual(0.1);
    expect(Date.parse(classify.first_seen)).toBeLessThanOrEqual(Date.parse(classify.last_seen));
    expect(classify.phases.tuning).toMatchObject({ first_seen: classify.first_seen, last_seen: classify.last_seen });
    expect(summarize).toMatchObject({ calls: 1, expected: true, settled: false });
    expect(await workflow()).toMatchObject({ stage: 'tuning', steps_expected: 2, steps_settled: 1, ready: false });

    const off = await call('PATCH', `/v1/workflows/${wf()}/steps/${summarize.fingerprint}`, { excluded: true });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ fingerprint: summarize.fingerprint, excluded: true, expected: false });
    expect(await workflow()).toMatchObject({ stage: 'ready', steps_expected: 1, steps_settled: 1, ready: true });

    const on = await call('PATCH', `/v1/workflows/${wf()}/steps/${summarize.fingerprint}`, { excluded: false });
    expect(on.body).toMatchObject({ excluded: false, expected: true });
    expect(await workflow()).toMatchObject({ stage: 'tuning', steps_expected: 2, steps_settled: 1, ready: false });
  }, 120_000); // 125 learning calls: 7 s on a quiet machine, past 30 s under load, and the next test reads what they left

  it('refuses a PATCH body other than {excluded: boolean}, and 404s an unknown step', async () => {
    const [s] = await steps();
    for (const body of [{ excluded: 'yes' }, { excluded: true, note: 'x' }, {}]) {
      expect((await call('PATCH', `/v1/workflows/${wf()}/steps/${s.fingerprint}`, body)).status, JSON.stringify(body)).toBe(422);
    }
    const missing = await call('PATCH', `/v1/workflows/${wf()}/steps/no-such-step`, { excluded: true });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
  });
});

describe('the calls behind a step', () => {
  it('lists the stored calls of a step newest first, at most 100, and filters them by the model that served them', async () => {
    const settledModel = await ask('classify', 500); // served by the settled choice
    const classify = (await steps()).find((s) => s.label === 'classify');
    const all = await call('GET', `/v1/workflows/${wf()}/steps/${classify.fingerprint}/calls`);
    expect(all.status).toBe(200);
    expect(all.body.data).toHaveLength(100);
    expect(all.body.data[0]).toMatchObject({ agent: wf(), model: 'auto', routed_model: settledModel });
    expect(all.body.data[0].cost).toEqual(expect.objectContaining({ baseline: expect.any(Number), actual: expect.any(Number) }));
    const times = all.body.data.map((c: any) => Date.parse(c.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));

    const baseline = await call('GET', `/v1/workflows/${wf()}/steps/${classify.fingerprint}/calls?model=gpt-4.1`);
    expect(baseline.body.data.length).toBeGreaterThan(0);
    expect(baseline.body.data.every((c: any) => c.routed_model === 'gpt-4.1')).toBe(true);
    if (settledModel !== 'gpt-4.1') {
      const cheap = await call('GET', `/v1/workflows/${wf()}/steps/${classify.fingerprint}/calls?model=${encodeURIComponent(settledModel)}`);
      expect(cheap.body.data.map((c: any) => c.routed_model)).toEqual(cheap.body.data.map(() => settledModel));
      expect(cheap.body.data.length).toBeGreaterThan(0);
    }
    const summarize = (await steps()).find((s) => s.label === 'summarize');
    expect((await call('GET', `/v1/workflows/${wf()}/steps/${summarize.fingerprint}/calls`)).body.data).toHaveLength(1);
    expect((await call('GET', `/v1/workflows/${wf()}/steps/${classify.fingerprint}/calls?model=no-such-model`)).body.data).toEqual([]);
    expect((await call('GET', `/v1/workflows/${wf()}/steps/no-such-step/calls`)).status).toBe(404);
    expect((await call('GET', `/v1/workflows/${wf()}/steps/${classify.fingerprint}/calls?colour=red`)).status).toBe(422);
  });
});

describe('the agent graph', () => {
  async function agent(name: string) {
    const r = await call('POST', '/v1/agents', { name });
    expect(r.status).toBe(201);
    return r.body as { id: string; api_key: string };
  }
  const graph = async (id: string) => (await call('GET', `/v1/agents/${id}/graph`)).body;
  const edge = (g: any, from: string, to: string) => g.edges.find((e: any) => e.from_label === from && e.to_label === to);

  it('draws the real call tree from declared parents: a fan-out is several edges from one parent', async () => {
    const a = await agent('fan-out');
    for (const run of ['r1', 'r2']) {
      await ask('plan', 0, { key: a.api_key, run: { id: run, seq: 0, is_start: true } });
      await ask('fetch-a', 1, { key: a.api_key, run: { id: run, seq: 1, parent: 'plan' } });
      await ask('fetch-b', 2, { key: a.api_key, run: { id: run, seq: 2, parent: 'plan' } });
    }
    const g = await graph(a.id);
    expect(g).toMatchObject({ agent: a.id, inferred: false });
    expect(g.nodes.map((n: any) => [n.label, n.calls]).sort()).toEqual([['fetch-a', 2], ['fetch-b', 2], ['plan', 2]]);
    expect(g.edges).toHaveLength(2);
    expect(edge(g, 'plan', 'fetch-a')).toMatchObject({ calls: 2, inferred: false });
    expect(edge(g, 'plan', 'fetch-b')).toMatchObject({ calls: 2, inferred: false });
    const plan = g.nodes.find((n: any) => n.label === 'plan');
    expect(g.edges.every((e: any) => e.from === plan.fingerprint)).toBe(true);
  });

  it('reads calls without declared parents as a linear chain in run.seq order, flagged inferred', async () => {
    const b = await agent('chain');
    // sent out of order: the chain follows seq, not arrival
    await ask('fetch-b', 2, { key: b.api_key, run: { id: 'r1', seq: 2 } });
    await ask('plan', 0, { key: b.api_key, run: { id: 'r1', seq: 0 } });
    await ask('fetch-a', 1, { key: b.api_key, run: { id: 'r1', seq: 1 } });
    const g = await graph(b.id);
    expect(g.inferred).toBe(true);
    expect(g.edges).toHaveLength(2);
    expect(edge(g, 'plan', 'fetch-a')).toMatchObject({ calls: 1, inferred: true });
    expect(edge(g, 'fetch-a', 'fetch-b')).toMatchObject({ calls: 1, inferred: true });
  });

  it('keeps a parent it has not seen as a step, by the name the call declared', () => {
    const g = buildGraph('wf', [{ fingerprint: 'f1', label: 'child', calls: 1 }], [{ fingerprint: 'f1', label: 'child', created_at: new Date(), run: { id: 'r', parent: 'outside' } }]);
    expect(g.edges).toEqual([{ from: null, from_label: 'outside', to: 'f1', to_label: 'child', calls: 1, inferred: false }]);
  });
});

describe('tenancy', () => {
  it("answers 404 for another tenant's workflow on every step and graph route", async () => {
    const [s] = await steps();
    const paths: [string, string, unknown?][] = [
      ['GET', `/v1/workflows/${wf()}/steps`],
      ['PATCH', `/v1/workflows/${wf()}/steps/${s.fingerprint}`, { excluded: true }],
      ['GET', `/v1/workflows/${wf()}/steps/${s.fingerprint}/calls`],
      ['GET', `/v1/agents/${wf()}/graph`],
    ];
    for (const [method, path, body] of paths) {
      const r = await call(method, path, body, stranger.api_key);
      expect(r.status, `${method} ${path}`).toBe(404);
    }
    expect((await call('GET', '/v1/agents/wf_nope/graph')).status).toBe(404);
    expect((await steps()).find((x) => x.fingerprint === s.fingerprint).excluded).toBe(false);
    expect((await call('GET', '/v1/workflows', undefined, stranger.api_key)).body.data[0]).toMatchObject({ steps_expected: 0, ready: false });
  });
});
