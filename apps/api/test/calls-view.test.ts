// What the dashboard's calls view and money breakdown read from the API, on real calls through
// the gateway to a mock vendor: the calls list filtered by step, run, model, cache, outcome and
// time (the same on REST, tRPC and GraphQL), each call's step, run and policy, its reasons as
// fields, one call's attempts (a failed one with why), the breakdown whose sums agree with the
// savings totals, and GraphiQL saying how to authenticate (or using the dashboard's session).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reasonFields } from '../src/reporting/call-reasons.ts';
import { gql, operation, rest, trpcClient, type Creds } from './support/doors.ts';
import { authed } from './support/gateway.ts';
import { warmStep } from './support/optimizer.ts';
import { routeOnMockOpenAI, startRig, type Rig } from './support/vendor.ts';

const FAULTY_KEY = `sk-faulty-${randomBytes(6).toString('hex')}`;

let rig: Rig;
const ids: { classify: string[]; summarize: string[]; pinned: string; failed: string } = { classify: [], summarize: [], pinned: '', failed: '' };

interface CallOut {
  id: string;
  step: string | null;
  run: string | null;
  status: number;
  policy: { key: string; settled: boolean; baseline_model: string; quality_bar: number } | null;
  why: { kind: string; summary: string; bar: number | null }[];
  reasons: string[];
  cost: { actual: number; exploration: number };
  attempts?: { attempt: number; role: string; vendor: string; model: string; status: number | null; outcome: string; cost: number; error: string | null }[];
}

async function ask(model: string, step: string | null, run?: string, headers: Record<string, string> = {}): Promise<string> {
  const optimizer = step ? { step: { id: step }, ...(run ? { run: { id: run } } : {}) } : undefined;
  const r = await fetch(`${rig.gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...authed(rig.tenant.api_key), ...headers },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: `Classify: ${step ?? 'plain'} ${randomBytes(3).toString('hex')}` }], ...(optimizer ? { optimizer } : {}) }),
  });
  await r.body?.cancel();
  // a failed call's answer names no call id: the caller finds it by its outcome
  return r.headers.get('x-optimizer-call-id') ?? `failed:${r.status}`;
}

const creds = (): Creds => ({ key: rig.tenant.api_key });

async function list(query: string): Promise<CallOut[]> {
  const r = await rest(rig.gw.url, creds(), 'GET', `/v1/calls?limit=100&${query}`);
  expect(r.status, `${query}: ${JSON.stringify(r.body)}`).toBe(200);
  return r.body.data as CallOut[];
}
const idsOf = (calls: { id: string }[]) => calls.map((c) => c.id).sort();

beforeAll(async () => {
  rig = await startRig({ env: { CIRCUIT_FAILURES: '1000' }, vendorOptions: { keyFaults: { [FAULTY_KEY]: 500 } } });
  expect((await routeOnMockOpenAI(rig)).status).toBe(200);
  rig.vendor.script({ content: '{"score": 1, "reason": "correct"}' });
  warmStep(rig, 'classify'); // traffic enough to explore: probes and judge grades become attempts
  for (let i = 0; i < 3; i++) ids.classify.push(await ask('auto', 'classify', 'run-a'));
  for (let i = 0; i < 2; i++) ids.summarize.push(await ask('auto', 'summarize', 'run-b'));
  ids.pinned = await ask('gpt-4.1-mini', null);
  // the tenant's own key for the vendor, which the vendor refuses with a 500: a failed call
  expect(await ask('gpt-4.1-mini', null, undefined, { 'x-provider-key': FAULTY_KEY })).toBe('failed:502');
  await rig.gw.learned();
  const failed = await list('outcome=error');
  expect(failed).toHaveLength(1);
  ids.failed = failed[0]!.id;
});
afterAll(async () => {
  await rig?.close();
});

describe('the calls list, filtered', () => {
  it('narrows by step (label or fingerprint), run, model, outcome, cache and time', async () => {
    const classify = await list('step=classify');
    expect(idsOf(classify)).toEqual([...ids.classify].sort());
    for (const c of classify) {
      expect(c.step).toBe('classify');
      expect(c.run).toBe('run-a');
      expect(c.policy?.baseline_model).toBe('gpt-4.1');
      expect(c.policy?.quality_bar).toBeGreaterThan(0);
      // the reasons as fields: the bar the call was held to, with its line kept as the summary
      const bar = c.why.find((w) => w.kind === 'bar')!;
      expect(bar.bar).toBe(c.policy!.quality_bar);
      expect(c.reasons).toContain(bar.summary);
    }
    const fingerprint = ((await list('step=summarize'))[0] as unknown as { fingerprint: string }).fingerprint;
    expect(idsOf(await list(`step=${fingerprint}`))).toEqual([...ids.summarize].sort());
    expect(idsOf(await list('run=run-b'))).toEqual([...ids.summarize].sort());
    const mini = idsOf(await list('model=gpt-4.1-mini'));
    expect(mini).toContain(ids.pinned);
    expect(mini).toContain(ids.failed);
    expect((await list('outcome=error'))[0]!.status).toBe(502);
    expect(await list('outcome=ok')).toHaveLength(6);
    expect(await list('cache=hit')).toEqual([]);
    expect(await list('cache=miss')).toHaveLength(7);
    // a window: all of them since yesterday, none before then or from tomorrow on
    const day = (d: number) => new Date(Date.now() + d * 86_400_000).toISOString().slice(0, 10);
    expect(await list(`from=${day(-1)}`)).toHaveLength(7);
    expect(await list(`to=${day(-1)}`)).toEqual([]);
    expect(await list(`from=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`)).toEqual([]);
    expect(idsOf(await list(`step=classify&outcome=ok&from=${day(-1)}&to=${day(1)}`))).toEqual([...ids.classify].sort());
  });

  it('refuses a filter it cannot read, naming it (422, as every input check)', async () => {
    for (const [q, param] of [['from=yesterday', 'from'], ['to=2025-13-45', 'to'], ['cache=maybe', 'cache'], ['outcome=fine', 'outcome']] as const) {
      const r = await rest(rig.gw.url, creds(), 'GET', `/v1/calls?${q}`);
      expect(r.status, q).toBe(422);
      expect(JSON.stringify(r.body), q).toContain(param);
    }
  });

  it('gives the same calls on tRPC and GraphQL', async () => {
    const want = [...ids.classify].sort();
    const trpc = trpcClient(rig.gw.url, creds());
    expect(idsOf((await trpc.calls.list.query({ limit: 50, step: 'classify', outcome: 'ok' })) as { id: string }[])).toEqual(want);
    const r = await gql(rig.gw.url, creds(), operation('Query', 'calls', { step: 'String', outcome: 'String' }), { step: 'classify', outcome: 'ok' });
    expect(r.errors).toBeUndefined();
    expect(idsOf(r.data.calls as { id: string }[])).toEqual(want);
  });
});

describe('one call', () => {
  it('lists every attempt of a routed call: the answer, its probes and grades, with vendor, latency and cost', async () => {
    const r = await rest(rig.gw.url, creds(), 'GET', `/v1/calls/${ids.classify[0]}`);
    expect(r.status).toBe(200);
    const call = r.body as unknown as CallOut;
    expect(call.attempts!.length).toBeGreaterThanOrEqual(1);
    const serve = call.attempts!.find((a) => a.role === 'serve')!;
    expect(serve).toMatchObject({ vendor: 'openai', outcome: 'ok', status: 200, error: null });
    // the attempts' costs are what the call cost
    const micros = (x: number) => Math.round(x * 1e6);
    expect(call.attempts!.reduce((s, a) => s + micros(a.cost), 0)).toBe(micros(call.cost.actual));
    if (call.cost.exploration > 0) expect(call.attempts!.some((a) => a.role !== 'serve')).toBe(true);
    expect(call.policy?.key).toMatch(/^(model|gate|verify|confirm|vote):/);
  });

  it('says why a failed attempt failed', async () => {
    const r = await rest(rig.gw.url, creds(), 'GET', `/v1/calls/${ids.failed}`);
    const call = r.body as unknown as CallOut;
    expect(call.status).toBeGreaterThanOrEqual(400);
    const failed = call.attempts!.find((a) => a.outcome === 'error')!;
    expect(failed).toMatchObject({ vendor: 'openai', model: 'gpt-4.1-mini', status: 500 });
    expect(failed.error).toContain('HTTP 500');
  });

  it('reads reason lines as fields, and keeps a line no rule knows as a note', () => {
    expect(reasonFields("routed to gpt-4o-mini: holds 0.988 ≥ 0.95 of the baseline's quality on 82 samples")).toMatchObject({ kind: 'decision', policy: 'gpt-4o-mini', bound: 0.988, bar: 0.95, samples: 82 });
    expect(reasonFields('served by the baseline gpt-4o: no cheaper policy proven to hold 0.95 yet')).toMatchObject({ kind: 'baseline', policy: 'gpt-4o', bar: 0.95 });
    expect(reasonFields('cheaper but unproven: claude-3-haiku; verify(gpt-4o-mini, judged)')).toMatchObject({ kind: 'unproven', others: ['claude-3-haiku', 'verify(gpt-4o-mini, judged)'] });
    expect(reasonFields('failed over from gpt-4o (openai) to claude-3-5-sonnet (anthropic): HTTP 503')).toMatchObject({ kind: 'failover', policy: 'claude-3-5-sonnet', others: ['gpt-4o'] });
    expect(reasonFields('something new')).toMatchObject({ kind: 'note', summary: 'something new', policy: null });
  });
});

describe('the money breakdown', () => {
  it('sums per step, per source and per model to the savings totals', async () => {
    const b = (await rest(rig.gw.url, creds(), 'GET', '/v1/dashboard/breakdown?days=7')).body as any;
    const s = (await rest(rig.gw.url, creds(), 'GET', '/v1/dashboard/savings')).body as any;
    const micros = (x: number) => Math.round(x * 1e6);
    const sum = (xs: any[], f: (x: any) => number) => xs.reduce((t, x) => t + micros(f(x)), 0);
    expect(b.totals.calls).toBe(7);
    expect(micros(b.totals.actual_cost)).toBe(micros(s.actual_cost));
    expect(micros(b.totals.saving)).toBe(micros(s.saving));
    for (const part of [b.by_step, b.by_source]) {
      expect(sum(part, (x) => x.actual_cost)).toBe(micros(b.totals.actual_cost));
      expect(sum(part, (x) => x.exploration_cost)).toBe(micros(b.totals.exploration_cost));
      expect(sum(part, (x) => x.saving)).toBe(micros(b.totals.saving));
    }
    const classify = b.by_step.find((x: any) => x.step === 'classify');
    expect(classify).toMatchObject({ calls: 3, agent: rig.tenant.workflow_id });
    expect(classify.agent_name).toBeTruthy();
    expect(b.traffic.reduce((t: number, p: any) => t + p.calls, 0)).toBe(7);
    expect(sum(b.traffic, (p) => p.exploration_cost)).toBe(micros(b.totals.exploration_cost));
    expect(sum(b.traffic.flatMap((p: any) => p.by_model), (m) => m.actual_cost)).toBe(micros(b.totals.actual_cost));
    // the same on GraphQL
    const g = await gql(rig.gw.url, creds(), '{ breakdown(days: 7) { totals { calls actualCost } byStep { step calls } } }');
    expect(g.errors).toBeUndefined();
    expect((g.data.breakdown as any).totals.calls).toBe(7);
  });
});

describe('GraphiQL', () => {
  const page = (headers: Record<string, string> = {}) => fetch(`${rig.gw.url}/graphql`, { headers: { accept: 'text/html', ...headers } }).then((r) => r.text());

  it('opened cold, says how to authenticate; with a dashboard session, uses it', async () => {
    const cold = await page();
    expect(cold).toContain('sign in to the dashboard at /optimizer/');
    expect(cold).toContain('Bearer sk-opt-');
    const email = `graphiql-${randomBytes(4).toString('hex')}@example.com`;
    const signed = (await (await fetch(`${rig.gw.url}/v1/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ company: 'G', email }) })).json()) as { api_key: string };
    const login = await fetch(`${rig.gw.url}/v1/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, api_key: signed.api_key }) });
    expect(login.status).toBe(200);
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const warm = await page({ cookie });
    expect(warm).toContain("Signed in through the dashboard");
    expect(warm).not.toContain('sign in to the dashboard at /optimizer/');
    // and the session answers the page's queries
    const q = await fetch(`${rig.gw.url}/graphql`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ savings { calls } }' }) });
    expect(q.status).toBe(200);
  });
});
