// One domain, three doors: every tenant capability read through REST, tRPC and GraphQL
// answers the same data, after real calls through the gateway with the official `openai`
// SDK (steps with declared parents, a failover, outcomes, recordings kept in full, a top-up
// paid through a local Stripe fake). GraphQL reads every field its type has (the selection is
// built from the schema), camelCase turned back into REST's keys.
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStripeMock, type StripeMock } from '@optimizer/mock-providers';
import { allFields, compact, gql, operation, rest, snake, trpcClient, trpcFailure, type Creds } from './support/doors.ts';
import { startLearningRig } from './support/optimizer.ts';
import type { Rig } from './support/vendor.ts';

let rig: Rig;
let creds: Creds;
let trpc: ReturnType<typeof trpcClient>;
const wf = () => rig.tenant.workflow_id;
let plan: string; // the fingerprint of the `plan` step
let second: string; // the second agent, in managed production
let stripe: StripeMock;
const STRIPE_KEY = 'sk_test_threeDoors51Hq';
const STRIPE_WEBHOOK = 'whsec_threeDoorsSecret';

type Params = Parameters<OpenAI['chat']['completions']['create']>[0] & { stream?: false };

/** One call through the official SDK, annotated with its run and step. */
async function ask(step: string, run: Record<string, unknown>, model = 'auto') {
  const body = { model, messages: [{ role: 'user', content: `work on ${step} for ${String(run.id)}` }], optimizer: { run, step: { id: step } } };
  const { response } = await rig.client.chat.completions.create(body as unknown as Params).withResponse();
  return response.headers.get('x-optimizer-call-id')!;
}

const admin = () => ({ key: rig.gw.adminKey });

beforeAll(async () => {
  stripe = await startStripeMock({ secretKey: STRIPE_KEY, secrets: [STRIPE_WEBHOOK] });
  ({ rig } = await startLearningRig(stripe.gatewayEnv()));
  stripe.webhookUrl = `${rig.gw.url}/v1/billing/webhook`;
  creds = { key: rig.tenant.api_key };
  trpc = trpcClient(rig.gw.url, creds);
  // recordings keep the request and the response in full
  expect((await rest(rig.gw.url, creds, 'PUT', '/v1/settings/capture', { content: 'full', retention_days: 14 })).status).toBe(200);
  for (const id of ['r1', 'r2']) {
    await ask('plan', { id, seq: 0 });
    await ask('fetch', { id, seq: 1, parent: 'plan' });
    await ask('answer', { id, seq: 2, parent: 'plan' });
  }
  // a failover: a model whose provider refuses connections, failing over to one the mock serves
  const profile = {
    provider: 'dead-vendor', input_per_mtok: 1, output_per_mtok: 4, cached_input_per_mtok: 0.5, cache_write_multiplier: 1, input_modalities: ['text'], output_modalities: ['text'],
    tools: 'full', structured_outputs: true, reasoning_efforts: [], context_length: 128_000, max_output_tokens: 16_384, strengths: { chat: 0.7 }, failover: ['gpt-4o-mini'],
  };
  expect((await rest(rig.gw.url, admin(), 'PUT', '/v1/admin/providers/dead-vendor', { base_url: 'http://127.0.0.1:9/v1', api_key: 'sk-dead', enabled: true })).status).toBe(200);
  expect((await rest(rig.gw.url, admin(), 'PUT', '/v1/admin/catalog/dead-primary', { model: 'dead-primary', ...profile })).status).toBe(200);
  expect((await rest(rig.gw.url, creds, 'PUT', '/v1/settings/routing', { failover: 'any' })).status).toBe(200); // gpt-4o-mini is another model
  await rig.client.chat.completions.create({ model: 'dead-primary', messages: [{ role: 'user', content: 'fail over, please' }] });
  // a stored provider key, a second agent with two keys, a finalized report, discovery on
  expect((await rest(rig.gw.url, creds, 'PUT', '/v1/settings/provider-keys/anthropic', { key: 'sk-ant-stored-000000' })).status).toBe(200);
  const agent = (await rest(rig.gw.url, creds, 'POST', '/v1/agents', { name: 'second' })).body as { id: string };
  expect((await rest(rig.gw.url, creds, 'POST', `/v1/agents/${agent.id}/keys`)).status).toBe(201);
  second = agent.id;
  // a paid top-up: the wallet credited through Stripe's signed webhook (its checkout saves the card the subscription is charged to)
  const checkout = (await rest(rig.gw.url, creds, 'POST', '/v1/billing/topup', { amount_usd: 20 })).body as { checkout_id: string };
  expect((await stripe.deliver(stripe.pay(checkout.checkout_id))).status).toBe(200);
  // the second agent in managed production: a finalized report, then a subscription
  expect((await rest(rig.gw.url, creds, 'POST', `/v1/workflows/${second}/report/finalize`)).status).toBe(201);
  expect((await rest(rig.gw.url, creds, 'POST', `/v1/workflows/${second}/subscription`)).status).toBe(201);
  // guard and alert settings, a webhook endpoint (alerting on events this test does not raise)
  expect((await rest(rig.gw.url, creds, 'PUT', '/v1/settings/guard', { redact_pii: true, pii_kinds: ['email', 'card'], injection: 'flag' })).status).toBe(200);
  expect((await rest(rig.gw.url, creds, 'PUT', '/v1/settings/alerts', { spend_cap_usd: 500, spend_thresholds: [50, 90], events: ['drift', 'resettled'] })).status).toBe(200);
  expect((await rest(rig.gw.url, creds, 'POST', '/v1/settings/alerts/webhooks', { url: 'https://hooks.example.com/optimizer' })).status).toBe(201);
  expect((await rest(rig.gw.url, creds, 'POST', `/v1/workflows/${wf()}/report/finalize`)).status).toBe(201);
  expect((await rest(rig.gw.url, creds, 'PUT', `/v1/proxy-agents/${wf()}/discovery`, { enabled: true })).status).toBe(200);
  const steps = (await rest(rig.gw.url, creds, 'GET', `/v1/workflows/${wf()}/steps`)).body.data as { label: string; fingerprint: string }[];
  plan = steps.find((s) => s.label === 'plan')!.fingerprint;
}, 120_000);

afterAll(async () => {
  await rig?.close();
  await stripe?.close();
});

/** Reads the three doors until they agree (the optimizer's judge may still be grading in the background), then compares. */
async function sameOnAllDoors(read: () => Promise<[rest: unknown, trpc: unknown, gql: unknown]>, tidy: (v: any) => unknown = (v) => v) {
  let last: unknown[] = [];
  for (let attempt = 0; attempt < 10; attempt++) {
    const [r, t, g] = await read();
    last = [tidy(compact(r)), tidy(compact(t)), tidy(compact(snake(g)))];
    if (JSON.stringify(last[0]) === JSON.stringify(last[1]) && JSON.stringify(last[0]) === JSON.stringify(last[2])) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(last[1], 'tRPC').toEqual(last[0]);
  expect(last[2], 'GraphQL').toEqual(last[0]);
  return last[0] as any;
}

async function readGql(field: string, args: Record<string, string> = {}, variables: Record<string, unknown> = {}, root: 'Query' | 'Mutation' = 'Query') {
  const r = await gql(rig.gw.url, creds, operation(root, field, args), variables);
  expect(r.errors, field).toBeUndefined();
  return r.data[field];
}

const data = async (path: string) => {
  const r = await rest(rig.gw.url, creds, 'GET', path);
  expect(r.status, path).toBe(200);
  return r.body.data ?? r.body;
};

/** A REST answer's whole body (a page keeps its `next_cursor` beside `data`). */
const whole = async (path: string) => {
  const r = await rest(rig.gw.url, creds, 'GET', path);
  expect(r.status, path).toBe(200);
  return r.body;
};

const thisMonth = () => new Date().toISOString().slice(0, 10);

describe('reads: the same data on REST, tRPC and GraphQL', () => {
  it('calls, with every field of the curated view', async () => {
    const calls = await sameOnAllDoors(async () => [await data('/v1/calls?limit=50'), await trpc.calls.list.query({ limit: 50 }), await readGql('calls', { limit: 'Int' }, { limit: 50 })]);
    expect(calls.length).toBe(7);
    expect(calls.some((c: any) => c.reasons.length > 0)).toBe(true);
  });

  it('calls of one agent', async () => {
    await sameOnAllDoors(async () => [
      await data(`/v1/calls?agent=${wf()}&limit=3`),
      await trpc.calls.list.query({ agent: wf(), limit: 3 }),
      await readGql('calls', { agent: 'String', limit: 'Int' }, { agent: wf(), limit: 3 }),
    ]);
  });

  it('activity, the raw timeline', async () => {
    const activity = await sameOnAllDoors(async () => [await data('/v1/activity?limit=100'), await trpc.calls.activity.query({ limit: 100 }), await readGql('activity', { limit: 'Int' }, { limit: 100 })]);
    // the failed attempt at the dead vendor is there beside the one that answered
    expect(activity.some((a: any) => a.provider === 'dead-vendor')).toBe(true);
  });

  it('savings by source', async () => {
    const s = await sameOnAllDoors(async () => [await data('/v1/dashboard/savings'), await trpc.savings.query(), await readGql('savings')]);
    expect(s.calls).toBe(7);
  });

  it('savings over time, bucketed from the first call to the last', async () => {
    const s = await sameOnAllDoors(async () => [
      await data('/v1/dashboard/savings/series?days=7&points=10'),
      await trpc.savingsSeries.query({ days: 7, points: 10 }),
      await readGql('savingsSeries', { days: 'Int', points: 'Int' }, { days: 7, points: 10 }),
    ]);
    // every call in a bucket, and the buckets add up to the totals
    expect(s.points.reduce((n: number, p: { calls: number }) => n + p.calls, 0)).toBe(7);
    expect(s.points.length).toBeLessThanOrEqual(10);
    const totals = await data('/v1/dashboard/savings');
    expect(s.points.reduce((n: number, p: { saving: number }) => n + p.saving, 0)).toBeCloseTo(totals.saving, 6);
  });

  it('workflows with their stage and settled steps', async () => {
    const list = await sameOnAllDoors(async () => [await data('/v1/workflows'), await trpc.workflows.query(), await readGql('workflows')]);
    expect(list.find((w: any) => w.id === wf())).toMatchObject({ stage: 'tuning', steps_expected: 3 });
  });

  it("a workflow's stage", async () => {
    await sameOnAllDoors(async () => [await data(`/v1/workflows/${wf()}/stage`), await trpc.workflow.stage.query({ id: wf() }), await readGql('workflowStage', { id: 'String!' }, { id: wf() })]);
  });

  it('the live report and a stored version', async () => {
    const live = await sameOnAllDoors(async () => [
      await data(`/v1/workflows/${wf()}/report`),
      await trpc.workflow.report.query({ id: wf() }),
      await readGql('report', { id: 'String!' }, { id: wf() }),
    ]);
    expect(live).toMatchObject({ newest_version: 1, versions: [1] });
    expect(live.steps).toHaveLength(3);
    const v1 = await sameOnAllDoors(async () => [
      await data(`/v1/workflows/${wf()}/report?version=1`),
      await trpc.workflow.report.query({ id: wf(), version: 1 }),
      await readGql('report', { id: 'String!', version: 'Int' }, { id: wf(), version: 1 }),
    ]);
    expect(v1.version).toBe(1);
  });

  it('the lockfile', async () => {
    const lock = await sameOnAllDoors(async () => [await data(`/v1/workflows/${wf()}/report/lock`), await trpc.workflow.lockfile.query({ id: wf() }), await readGql('lockfile', { id: 'String!' }, { id: wf() })]);
    expect(lock).toMatchObject({ lockfile_version: 1, workflow_id: wf(), report_version: 1 });
  });

  it('production events, the failover among them', async () => {
    const events = await sameOnAllDoors(async () => [
      await data(`/v1/workflows/${wf()}/events?days=7`),
      await trpc.workflow.events.query({ id: wf(), days: 7 }),
      await readGql('events', { id: 'String!', days: 'Int' }, { id: wf(), days: 7 }),
    ]);
    expect(events).toEqual([expect.objectContaining({ kind: 'failover', from: 'dead-primary', to: 'gpt-4o-mini' })]);
  });

  it('the step registry', async () => {
    const steps = await sameOnAllDoors(async () => [await data(`/v1/workflows/${wf()}/steps`), await trpc.workflow.steps.query({ id: wf() }), await readGql('steps', { id: 'String!' }, { id: wf() })]);
    expect(steps.map((s: any) => s.label).sort()).toEqual(['answer', 'fetch', 'plan']);
  });

  it('the calls behind a step, and only those one model served', async () => {
    const calls = await sameOnAllDoors(async () => [
      await data(`/v1/workflows/${wf()}/steps/${plan}/calls`),
      await trpc.workflow.stepCalls.query({ id: wf(), fingerprint: plan }),
      await readGql('stepCalls', { id: 'String!', fingerprint: 'String!' }, { id: wf(), fingerprint: plan }),
    ]);
    expect(calls).toHaveLength(2);
    const model = calls[0].routed_model as string;
    await sameOnAllDoors(async () => [
      await data(`/v1/workflows/${wf()}/steps/${plan}/calls?model=${encodeURIComponent(model)}`),
      await trpc.workflow.stepCalls.query({ id: wf(), fingerprint: plan, model }),
      await readGql('stepCalls', { id: 'String!', fingerprint: 'String!', model: 'String' }, { id: wf(), fingerprint: plan, model }),
    ]);
  });

  it('the agent graph, from declared parents', async () => {
    const g = await sameOnAllDoors(async () => [await data(`/v1/agents/${wf()}/graph`), await trpc.workflow.graph.query({ id: wf() }), await readGql('graph', { id: 'String!' }, { id: wf() })]);
    expect(g).toMatchObject({ inferred: false });
    expect(g.edges).toHaveLength(2);
  });

  it('discovery progress and its report', async () => {
    const progress = await sameOnAllDoors(async () => [
      await data(`/v1/proxy-agents/${wf()}/discovery`),
      await trpc.discovery.progress.query({ id: wf() }),
      await readGql('discovery', { id: 'String!' }, { id: wf() }),
    ]);
    expect(progress).toMatchObject({ enabled: true, agent: wf() });
    // generated_at is the moment of each read
    const report = await sameOnAllDoors(
      async () => [await data(`/v1/proxy-agents/${wf()}/discovery/report`), await trpc.discovery.report.query({ id: wf() }), await readGql('discoveryReport', { id: 'String!' }, { id: wf() })],
      ({ generated_at: _, ...rest }) => rest,
    );
    expect(report.steps).toHaveLength(3);
  });

  it('routing settings', async () => {
    const s = await sameOnAllDoors(async () => [await data('/v1/settings/routing'), await trpc.settings.routing.query(), await readGql('routingSettings')]);
    expect(s).toMatchObject({ allowed_providers: ['openai'], baseline_model: 'gpt-4.1' });
  });

  it('stored provider keys, never the key', async () => {
    const keys = await sameOnAllDoors(async () => [await data('/v1/settings/provider-keys'), await trpc.settings.providerKeys.query(), await readGql('providerKeys')]);
    expect(keys).toEqual([expect.objectContaining({ provider: 'anthropic', key_set: true })]);
    expect(JSON.stringify(keys)).not.toContain('sk-ant-stored');
  });

  it('agents with their totals, and an agent\'s keys by hint', async () => {
    const agents = await sameOnAllDoors(async () => [await data('/v1/agents'), await trpc.agents.list.query(), await readGql('agents')]);
    expect(agents).toHaveLength(2);
    const second = agents.find((a: any) => a.name === 'second').id as string;
    const keys = await sameOnAllDoors(async () => [await data(`/v1/agents/${second}/keys`), await trpc.agents.keys.query({ id: second }), await readGql('agentKeys', { id: 'String!' }, { id: second })]);
    expect(keys).toHaveLength(2);
  });

  it('capture settings', async () => {
    const c = await sameOnAllDoors(async () => [await data('/v1/settings/capture'), await trpc.settings.capture.query(), await readGql('captureSettings')]);
    expect(c).toEqual({ content: 'full', retention_days: 14, redact_pii: true });
  });

  it("a workflow's recordings, in full, page by page", async () => {
    const all = await sameOnAllDoors(async () => [
      await whole(`/v1/workflows/${wf()}/recordings?limit=50`),
      await trpc.workflow.recordings.query({ id: wf(), limit: 50 }),
      await readGql('recordings', { id: 'String!', limit: 'Int' }, { id: wf(), limit: 50 }),
    ]);
    expect(all.data).toHaveLength(7);
    expect(all.next_cursor).toBeUndefined(); // null, compacted: the last page
    expect(all.data.every((r: any) => r.content === 'full' && r.workflow_id === wf())).toBe(true);
    expect(all.data.some((r: any) => r.request?.messages?.length === 1 && r.response?.choices?.length === 1)).toBe(true);
    const first = await sameOnAllDoors(async () => [
      await whole(`/v1/workflows/${wf()}/recordings?limit=3`),
      await trpc.workflow.recordings.query({ id: wf(), limit: 3 }),
      await readGql('recordings', { id: 'String!', limit: 'Int' }, { id: wf(), limit: 3 }),
    ]);
    expect(first.data).toEqual(all.data.slice(0, 3));
    const cursor = first.next_cursor as string;
    const next = await sameOnAllDoors(async () => [
      await whole(`/v1/workflows/${wf()}/recordings?limit=3&cursor=${cursor}`),
      await trpc.workflow.recordings.query({ id: wf(), limit: 3, cursor }),
      await readGql('recordings', { id: 'String!', limit: 'Int', cursor: 'String' }, { id: wf(), limit: 3, cursor }),
    ]);
    expect(next.data).toEqual(all.data.slice(3, 6));
  });

  it("one step's recordings, and one recording", async () => {
    const ofPlan = await sameOnAllDoors(async () => [
      await whole(`/v1/workflows/${wf()}/recordings?step=${plan}`),
      await trpc.workflow.recordings.query({ id: wf(), step: plan }),
      await readGql('recordings', { id: 'String!', step: 'String' }, { id: wf(), step: plan }),
    ]);
    expect(ofPlan.data).toHaveLength(2);
    expect(ofPlan.data.every((r: any) => r.step.fingerprint === plan && r.step.label === 'plan')).toBe(true);
    const id = ofPlan.data[0].id as string;
    const one = await sameOnAllDoors(async () => [
      await data(`/v1/workflows/${wf()}/recordings/${id}`),
      await trpc.workflow.recording.query({ id: wf(), recording_id: id }),
      await readGql('recording', { id: 'String!', recordingId: 'String!' }, { id: wf(), recordingId: id }),
    ]);
    expect(one).toEqual(ofPlan.data[0]);
  });

  it('guard settings', async () => {
    const g = await sameOnAllDoors(async () => [await data('/v1/settings/guard'), await trpc.settings.guard.query(), await readGql('guardSettings')]);
    expect(g).toEqual({ redact_pii: true, pii_kinds: ['email', 'card'], injection: 'flag' });
  });

  it('alert settings with their webhook endpoints, never a secret', async () => {
    const a = await sameOnAllDoors(async () => [await data('/v1/settings/alerts'), await trpc.settings.alerts.query(), await readGql('alertSettings')]);
    expect(a).toMatchObject({ spend_cap_usd: 500, spend_thresholds: [50, 90], email_to: [], events: ['drift', 'resettled'] });
    expect(a.webhooks).toEqual([expect.objectContaining({ url: 'https://hooks.example.com/optimizer', enabled: true })]);
    expect(JSON.stringify(a)).not.toContain('whsec');
  });

  it('the billing view: balances, prices, subscriptions and the ledger with the paid top-up', async () => {
    const b = await sameOnAllDoors(async () => [await data('/v1/billing'), await trpc.billing.view.query(), await readGql('billing')]);
    expect(b.ledger.filter((e: any) => e.kind === 'topup').map((e: any) => e.amount_micros)).toEqual([20_000_000]);
    expect(b.subscriptions).toEqual([expect.objectContaining({ workflow_id: second, status: 'active' })]);
    // calls draw on the dev allowance first: the wallet holds the top-up whole
    expect(b.balances.wallet_micros).toBe(20_000_000);
  });

  it("this month's statement", async () => {
    const from = thisMonth();
    const st = await sameOnAllDoors(async () => [
      await data(`/v1/billing/statements?from=${from}&to=${from}`),
      await trpc.billing.statements.query({ from, to: from }),
      await readGql('statements', { from: 'String', to: 'String' }, { from, to: from }),
    ]);
    expect(st).toHaveLength(1);
    expect(st[0]).toMatchObject({ period: from.slice(0, 7), closed: false });
    expect(st[0].calls).toBeGreaterThanOrEqual(7);
  });

  it("this month's savings ledger", async () => {
    const from = thisMonth();
    const l = await sameOnAllDoors(async () => [
      await whole(`/v1/billing/savings-ledger?from=${from}&to=${from}`),
      await trpc.billing.savingsLedger.query({ from, to: from }),
      await readGql('savingsLedger', { from: 'String', to: 'String' }, { from, to: from }),
    ]);
    expect(l.data).toHaveLength(1);
    expect(l.data[0]).toMatchObject({ period: from.slice(0, 7), closed: false });
    expect(l.totals.saving_usd).toBe(l.data[0].cumulative_saving_usd);
  });

  it("a workflow's managed subscription", async () => {
    const sub = await sameOnAllDoors(async () => [await data(`/v1/workflows/${second}/subscription`), await trpc.workflow.subscription.query({ id: second }), await readGql('subscription', { id: 'String!' }, { id: second })]);
    expect(sub).toMatchObject({ workflow_id: second, status: 'active', cancel_at_period_end: false });
  });

  it('the estimate for a monthly spend', async () => {
    const viaRest = await rest(rig.gw.url, creds, 'POST', '/v1/estimate', { monthly_spend: 10_000 });
    expect(viaRest.status).toBe(200);
    const e = await sameOnAllDoors(async () => [viaRest.body, await trpc.billing.estimate.query({ monthly_spend: 10_000 }), await readGql('estimate', { monthlySpend: 'Float!' }, { monthlySpend: 10_000 })]);
    expect(e).toMatchObject({ monthly_spend_usd: 10_000, under_claims: true });
  });
});

describe('writes: each door does the same', () => {
  it('excludes a step and gives it back', async () => {
    const answers = await Promise.all([
      rest(rig.gw.url, creds, 'PATCH', `/v1/workflows/${wf()}/steps/${plan}`, { excluded: true }).then((r) => r.body),
      trpc.workflow.patchStep.mutate({ id: wf(), fingerprint: plan, excluded: true }),
    ]);
    const viaGql = await readGql('patchStep', { id: 'String!', fingerprint: 'String!', excluded: 'Boolean' }, { id: wf(), fingerprint: plan, excluded: true }, 'Mutation');
    for (const a of [...answers, snake(viaGql)]) expect(a).toMatchObject({ fingerprint: plan, excluded: true, expected: false });
    expect(compact(snake(viaGql))).toEqual(compact(answers[1]));
    await trpc.workflow.patchStep.mutate({ id: wf(), fingerprint: plan, excluded: false });
    expect((await data(`/v1/workflows/${wf()}/steps`)).find((s: any) => s.fingerprint === plan)).toMatchObject({ excluded: false, expected: true });
  });

  it('turns discovery off and on, read back the same', async () => {
    const viaRest = (await rest(rig.gw.url, creds, 'PUT', `/v1/proxy-agents/${wf()}/discovery`, { enabled: false })).body;
    const viaTrpc = await trpc.discovery.set.mutate({ id: wf(), enabled: false });
    const viaGql = await readGql('setDiscovery', { id: 'String!', enabled: 'Boolean!' }, { id: wf(), enabled: false }, 'Mutation');
    expect(viaRest.enabled).toBe(false);
    expect(viaTrpc).toEqual(viaRest);
    expect(compact(snake(viaGql))).toEqual(compact(viaRest));
    await trpc.discovery.set.mutate({ id: wf(), enabled: true });
  });

  it('writes routing settings on any door and reads them back on the others', async () => {
    const before = await trpc.settings.routing.query();
    await readGql('setRoutingSettings', { input: 'RoutingSettingsInput!' }, { input: { allowedProviders: ['openai'], baselineModel: 'gpt-4.1', qualityFloor: 0.96, cache: { ttlSeconds: 60 }, ladders: { fast_tier: ['gpt-4o-mini'] } } }, 'Mutation');
    // a write merges: GET shows the effective settings, defaults filled in
    expect(await data('/v1/settings/routing')).toMatchObject({ allowed_providers: ['openai'], baseline_model: 'gpt-4.1', quality_floor: 0.96, cache: { ttl_seconds: 60, exact: false, semantic: false }, ladders: { fast_tier: ['gpt-4o-mini'] } });
    await trpc.settings.setRouting.mutate({ ...before, quality_floor: 0.97 });
    expect((await readGql('routingSettings')).qualityFloor).toBe(0.97);
    // ladders merge tier by tier: the added tier goes back with a null
    expect((await rest(rig.gw.url, creds, 'PUT', '/v1/settings/routing', { ...before, ladders: { ...before.ladders, fast_tier: null } })).status).toBe(200);
    expect(await trpc.settings.routing.query()).toEqual(before);
  });

  it('stores and removes a provider key on each door', async () => {
    const put = { provider: 'groq', key: 'gsk-stored-key-000000' };
    const answers = [
      (await rest(rig.gw.url, creds, 'PUT', '/v1/settings/provider-keys/groq', { key: put.key })).body,
      await trpc.settings.putProviderKey.mutate(put),
      snake(await readGql('putProviderKey', { provider: 'String!', key: 'String!' }, put, 'Mutation')),
    ];
    for (const a of answers) expect(a).toEqual({ provider: 'groq', key_set: true });
    const listed = async () => (await trpc.settings.providerKeys.query()).map((k) => k.provider).sort();
    expect(await listed()).toEqual(['anthropic', 'groq']);
    expect((await rest(rig.gw.url, creds, 'DELETE', '/v1/settings/provider-keys/groq')).status).toBe(204);
    expect(await listed()).toEqual(['anthropic']);
    await trpc.settings.putProviderKey.mutate(put);
    expect(await trpc.settings.removeProviderKey.mutate({ provider: 'groq' })).toEqual({ provider: 'groq', key_set: false });
    await trpc.settings.putProviderKey.mutate(put);
    expect(snake(await readGql('removeProviderKey', { provider: 'String!' }, { provider: 'groq' }, 'Mutation'))).toEqual({ provider: 'groq', key_set: false });
    expect(await listed()).toEqual(['anthropic']);
  });

  it('creates agents and keys and revokes a key on each door', async () => {
    const made = [
      (await rest(rig.gw.url, creds, 'POST', '/v1/agents', { name: 'via-rest' })).body,
      await trpc.agents.create.mutate({ name: 'via-trpc' }),
      snake(await readGql('createAgent', { name: 'String!' }, { name: 'via-gql' }, 'Mutation')),
    ] as { id: string; name: string; api_key: string; key_id: string }[];
    for (const [i, a] of made.entries()) {
      expect(a).toMatchObject({ name: ['via-rest', 'via-trpc', 'via-gql'][i], api_key: expect.stringMatching(/^sk-opt-/) });
      expect(Object.keys(a).sort()).toEqual(['api_key', 'id', 'key_id', 'name']);
    }
    const id = made[2]!.id;
    const keys = [
      (await rest(rig.gw.url, creds, 'POST', `/v1/agents/${id}/keys`)).body,
      await trpc.agents.createKey.mutate({ id }),
      snake(await readGql('createAgentKey', { id: 'String!' }, { id }, 'Mutation')),
    ] as { id: string; api_key: string; hint: string }[];
    for (const k of keys) expect(Object.keys(k).sort()).toEqual(['api_key', 'hint', 'id']);
    expect((await rest(rig.gw.url, creds, 'DELETE', `/v1/agents/${id}/keys/${keys[0]!.id}`)).status).toBe(204);
    expect(await trpc.agents.revokeKey.mutate({ id, key_id: keys[1]!.id })).toEqual({ id: keys[1]!.id, revoked: true });
    expect(await readGql('revokeAgentKey', { id: 'String!', keyId: 'String!' }, { id, keyId: keys[2]!.id }, 'Mutation')).toEqual({ id: keys[2]!.id, revoked: true });
    const listed = await sameOnAllDoors(async () => [await data(`/v1/agents/${id}/keys`), await trpc.agents.keys.query({ id }), await readGql('agentKeys', { id: 'String!' }, { id })]);
    expect(listed.map((k: any) => k.revoked)).toEqual([false, true, true, true]);
    // a revoked key no longer calls
    const revoked = await rest(rig.gw.url, { key: keys[1]!.api_key }, 'GET', '/v1/agents');
    expect(revoked.status).toBe(401);
  });

  it('finalizes a report on each door, each a new stored version read the same everywhere', async () => {
    const v2 = (await rest(rig.gw.url, creds, 'POST', `/v1/workflows/${wf()}/report/finalize`)).body;
    const v3 = await trpc.workflow.finalize.mutate({ id: wf() });
    const v4 = snake(await readGql('finalizeReport', { id: 'String!' }, { id: wf() }, 'Mutation')) as { version: number };
    expect([v2.version, v3.version, v4.version]).toEqual([2, 3, 4]);
    await sameOnAllDoors(async () => [
      await data(`/v1/workflows/${wf()}/report?version=4`),
      await trpc.workflow.report.query({ id: wf(), version: 4 }),
      await readGql('report', { id: 'String!', version: 'Int' }, { id: wf(), version: 4 }),
    ]);
  });

  it('refuses production without a subscription with the same 402 on each door', async () => {
    const r = await rest(rig.gw.url, creds, 'POST', `/v1/workflows/${wf()}/stage`, { stage: 'production' });
    expect(r.status).toBe(402);
    expect(r.body.error.code).toBe('subscription_required');
    const t = await trpcFailure(trpc.workflow.moveTo.mutate({ id: wf(), stage: 'production' }));
    expect(t.data).toMatchObject({ httpStatus: 402, apiCode: 'subscription_required' });
    expect(t.message).toBe(r.body.error.message);
    const g = await gql(rig.gw.url, creds, `mutation { moveWorkflow(id: "${wf()}", stage: production) { id stage } }`);
    expect(g.errors?.[0]).toMatchObject({ message: r.body.error.message, extensions: { apiCode: 'subscription_required', status: 402 } });
  });

  it('reports an outcome on each door for the same run step, attributed to the same calls', async () => {
    const body = { run_id: 'r1', step_id: 'plan', signals: { score: 0.9 } };
    const viaRest = await rest(rig.gw.url, creds, 'POST', '/v1/outcomes', body);
    expect(viaRest.status).toBe(202);
    const viaTrpc = await trpc.outcomes.report.mutate(body);
    const viaGql = snake(await readGql('reportOutcome', { runId: 'String!', stepId: 'String!', signals: 'OutcomeSignalsInput!' }, { runId: 'r1', stepId: 'plan', signals: { score: 0.9 } }, 'Mutation'));
    expect(viaRest.body).toMatchObject({ run_id: 'r1', step_id: 'plan', score: 0.9 });
    expect(viaRest.body.calls).toHaveLength(1);
    expect(viaTrpc).toEqual(viaRest.body);
    expect(viaGql).toEqual(viaRest.body);
  });

  it('refuses the same bad input with the same message and field on each door', async () => {
    const r = await rest(rig.gw.url, creds, 'GET', `/v1/workflows/${wf()}/events?days=0`);
    expect(r.status).toBe(422);
    const t = await trpcFailure(trpc.workflow.events.query({ id: wf(), days: 0 }));
    expect(t.data).toMatchObject({ httpStatus: 422, apiCode: 'validation_failed', param: 'days' });
    expect(t.message).toBe(r.body.error.message);
    const g = await gql(rig.gw.url, creds, `query { events(id: "${wf()}", days: 0) { id } }`);
    expect(g.errors?.[0]).toMatchObject({ message: r.body.error.message, extensions: { code: 'BAD_USER_INPUT', apiCode: 'validation_failed', field: 'days' } });
  });
});

describe('writes of capture, guard, alerts and billing: each door does the same', () => {
  it('writes capture settings on any door and reads them back on the others', async () => {
    const before = await trpc.settings.capture.query();
    const viaGql = snake(await readGql('setCaptureSettings', { input: 'CaptureSettingsInput!' }, { input: { content: 'metadata', retentionDays: 7 } }, 'Mutation'));
    expect(viaGql).toEqual({ content: 'metadata', retention_days: 7, redact_pii: true });
    expect(await data('/v1/settings/capture')).toEqual(viaGql);
    // a write merges: retention_days, not sent, keeps its value
    expect(await trpc.settings.setCapture.mutate({ content: 'none', redact_pii: false })).toEqual({ content: 'none', retention_days: 7, redact_pii: false });
    expect(snake(await readGql('captureSettings'))).toEqual({ content: 'none', retention_days: 7, redact_pii: false });
    const viaRest = await rest(rig.gw.url, creds, 'PUT', '/v1/settings/capture', before);
    expect(viaRest.body).toEqual(before);
    expect(await trpc.settings.capture.query()).toEqual(before);
  });

  it('writes guard settings on any door and reads them back on the others', async () => {
    const before = await trpc.settings.guard.query();
    const viaGql = snake(await readGql('setGuardSettings', { input: 'GuardSettingsInput!' }, { input: { redactPii: true, piiKinds: ['iban', 'national_id'], injection: 'block' } }, 'Mutation'));
    expect(viaGql).toEqual({ redact_pii: true, pii_kinds: ['iban', 'national_id'], injection: 'block' });
    expect(await data('/v1/settings/guard')).toEqual(viaGql);
    expect(await trpc.settings.setGuard.mutate({ injection: 'allow' })).toEqual({ redact_pii: true, pii_kinds: ['iban', 'national_id'], injection: 'allow' });
    expect(snake(await readGql('guardSettings'))).toMatchObject({ redact_pii: true, injection: 'allow' });
    expect(await trpc.settings.setGuard.mutate({ redact_pii: null, pii_kinds: null })).toEqual({ redact_pii: false, pii_kinds: ['email', 'phone', 'card', 'iban', 'national_id', 'secret'], injection: 'allow' });
    expect((await rest(rig.gw.url, creds, 'PUT', '/v1/settings/guard', before)).body).toEqual(before);
    expect(await trpc.settings.guard.query()).toEqual(before);
  });

  it('writes rate limits on any door and reads them back on the others', async () => {
    const before = await trpc.settings.limits.query();
    const viaGql = snake(await readGql('setRateLimits', { input: 'RateLimitsInput!' }, { input: { tenant: { requestsPerMinute: 600, tokensPerMinute: 100000 } } }, 'Mutation'));
    expect(viaGql).toMatchObject({ tenant: { requests_per_minute: 600, tokens_per_minute: 100000 }, keys: [] });
    expect(await data('/v1/settings/limits')).toEqual(viaGql);
    expect(await trpc.settings.setLimits.mutate({ tenant: { requests_per_minute: 300 } })).toMatchObject({ tenant: { requests_per_minute: 300, tokens_per_minute: 100000 } });
    expect(snake(await readGql('rateLimits'))).toMatchObject({ tenant: { requests_per_minute: 300, tokens_per_minute: 100000 } });
    // a fraction is refused on every door as REST refuses it
    expect((await rest(rig.gw.url, creds, 'PUT', '/v1/settings/limits', { tenant: { requests_per_minute: 1.5 } })).status).toBe(422);
    const gqlBad = await gql(rig.gw.url, creds, operation('Mutation', 'setRateLimits', { input: 'RateLimitsInput!' }), { input: { tenant: { requestsPerMinute: 1.5 } } });
    expect(gqlBad.errors?.[0]?.extensions).toMatchObject({ apiCode: 'validation_failed', status: 422 });
    await expect(trpc.settings.setLimits.mutate({ tenant: { requests_per_minute: 1.5 } })).rejects.toMatchObject({ data: { apiCode: 'validation_failed' } });
    const { ceiling: _c, ...restore } = before;
    expect((await rest(rig.gw.url, creds, 'PUT', '/v1/settings/limits', restore)).body).toEqual(before);
  });

  it('writes alert settings, and creates, rotates and removes webhook endpoints, on each door', async () => {
    const { webhooks: kept, ...before } = await trpc.settings.alerts.query();
    const viaTrpc = await trpc.settings.setAlerts.mutate({ spend_cap_usd: 250, spend_thresholds: [80], events: ['drift'] });
    expect(viaTrpc).toMatchObject({ spend_cap_usd: 250, spend_thresholds: [80], email_to: [], events: ['drift'] });
    expect(compact(snake(await readGql('alertSettings')))).toEqual(compact(viaTrpc));
    const viaGql = snake(await readGql('setAlertSettings', { input: 'AlertSettingsInput!' }, { input: { spendCapUsd: 300, events: ['resettled'] } }, 'Mutation'));
    expect(compact(viaGql)).toEqual(compact(await data('/v1/settings/alerts')));
    expect(viaGql).toMatchObject({ spend_cap_usd: 300, spend_thresholds: [80], events: ['resettled'] });

    const made = [
      (await rest(rig.gw.url, creds, 'POST', '/v1/settings/alerts/webhooks', { url: 'https://hooks.example.com/rest' })).body,
      await trpc.settings.createWebhook.mutate({ url: 'https://hooks.example.com/trpc' }),
      snake(await readGql('createAlertWebhook', { url: 'String!' }, { url: 'https://hooks.example.com/gql' }, 'Mutation')),
    ] as { id: string; url: string; secret: string }[];
    for (const m of made) expect(Object.keys(m).sort()).toEqual(['created_at', 'disabled_reason', 'enabled', 'id', 'secret', 'url']);
    expect(new Set(made.map((m) => m.secret)).size).toBe(3);
    const listed = await sameOnAllDoors(async () => [await data('/v1/settings/alerts'), await trpc.settings.alerts.query(), await readGql('alertSettings')]);
    expect(listed.webhooks.map((w: any) => w.url)).toEqual([kept[0]!.url, ...made.map((m) => m.url)]);
    expect(JSON.stringify(listed)).not.toContain(made[0]!.secret);

    const rotated = [
      (await rest(rig.gw.url, creds, 'POST', `/v1/settings/alerts/webhooks/${made[0]!.id}/rotate`)).body,
      await trpc.settings.rotateWebhook.mutate({ id: made[1]!.id }),
      snake(await readGql('rotateAlertWebhook', { id: 'String!' }, { id: made[2]!.id }, 'Mutation')),
    ] as { id: string; secret: string }[];
    for (const [i, r] of rotated.entries()) {
      expect(r.id).toBe(made[i]!.id);
      expect(r.secret).not.toBe(made[i]!.secret);
    }
    expect((await rest(rig.gw.url, creds, 'DELETE', `/v1/settings/alerts/webhooks/${made[0]!.id}`)).status).toBe(204);
    expect(await trpc.settings.removeWebhook.mutate({ id: made[1]!.id })).toEqual({ id: made[1]!.id, removed: true });
    expect(await readGql('removeAlertWebhook', { id: 'String!' }, { id: made[2]!.id }, 'Mutation')).toEqual({ id: made[2]!.id, removed: true });
    expect((await trpc.settings.alerts.query()).webhooks).toEqual(kept);

    await trpc.settings.setAlerts.mutate(before);
    expect(await data('/v1/settings/alerts')).toEqual({ ...before, webhooks: kept });
  });

  it('creates a checkout on each door; paying one credits the wallet once, whatever is redelivered', async () => {
    const wallet = async () => (await trpc.billing.view.query()).balances.wallet_micros;
    const before = await wallet();
    const viaRest = await rest(rig.gw.url, creds, 'POST', '/v1/billing/topup', { amount_usd: 5 });
    expect(viaRest.status).toBe(201);
    const checkouts = [viaRest.body, await trpc.billing.topup.mutate({ amount_usd: 7 }), snake(await readGql('createTopup', { amountUsd: 'Float!' }, { amountUsd: 11 }, 'Mutation'))] as { url: string; checkout_id: string }[];
    for (const c of checkouts) {
      expect(Object.keys(c).sort()).toEqual(['checkout_id', 'url']);
      expect(c.url.startsWith(`${stripe.url}/c/pay/`)).toBe(true);
      expect(stripe.sessions.get(c.checkout_id)).toBeDefined();
    }
    // nothing is credited until a checkout is paid
    expect(await wallet()).toBe(before);
    const paidTrpc = stripe.pay(checkouts[1]!.checkout_id);
    const paidGql = stripe.pay(checkouts[2]!.checkout_id);
    for (let i = 0; i < 3; i++) {
      expect((await stripe.deliver(paidGql)).status).toBe(200);
      expect((await stripe.deliver(paidTrpc)).status).toBe(200);
    }
    expect(await wallet()).toBe(before + 18_000_000);
    const view = await sameOnAllDoors(async () => [await data('/v1/billing'), await trpc.billing.view.query(), await readGql('billing')]);
    expect(view.ledger.filter((e: any) => e.kind === 'topup').map((e: any) => e.amount_micros).sort()).toEqual([11_000_000, 20_000_000, 7_000_000].sort());
  });

  it('sets auto top-up on each door, each seeing what another set, and turns it off', async () => {
    const setting = async () => (await sameOnAllDoors(async () => [await data('/v1/billing'), await trpc.billing.view.query(), await readGql('billing')])).auto_topup;
    const viaRest = await rest(rig.gw.url, creds, 'PUT', '/v1/billing/auto-topup', { threshold_usd: 2, amount_usd: 10 });
    expect(viaRest.status).toBe(200);
    expect(viaRest.body).toEqual({ threshold_usd: 2, amount_usd: 10 });
    // the wallet is far above the threshold: nothing is charged, the card the checkout saved is shown
    const first = await setting();
    expect(first).toMatchObject({ threshold_usd: 2, amount_usd: 10, payment_method_saved: true });
    expect(first.last_attempt ?? null).toBeNull();
    expect(await trpc.billing.setAutoTopup.mutate({ threshold_usd: 3, amount_usd: 15 })).toEqual({ threshold_usd: 3, amount_usd: 15 });
    expect(await setting()).toMatchObject({ threshold_usd: 3, amount_usd: 15 });
    const viaGql = snake(await readGql('setAutoTopup', { thresholdUsd: 'Float', amountUsd: 'Float' }, { thresholdUsd: 4, amountUsd: 12.5 }, 'Mutation'));
    expect(viaGql).toEqual({ threshold_usd: 4, amount_usd: 12.5 });
    expect(await setting()).toMatchObject({ threshold_usd: 4, amount_usd: 12.5 });
    expect(snake(await readGql('setAutoTopup', {}, {}, 'Mutation'))).toEqual({ threshold_usd: null, amount_usd: null });
    expect(await setting()).toBeUndefined(); // null on every door (compared without nulls)
    expect((await data('/v1/billing')).auto_topup).toBeNull();
    expect(await trpc.billing.setAutoTopup.mutate({ threshold_usd: null, amount_usd: null })).toEqual({ threshold_usd: null, amount_usd: null });
    expect((await rest(rig.gw.url, creds, 'PUT', '/v1/billing/auto-topup', { threshold_usd: null, amount_usd: null })).body).toEqual({ threshold_usd: null, amount_usd: null });
  });

  it("cancels and restarts a workflow's subscription on each door", async () => {
    const viaTrpc = await trpc.workflow.cancelSubscription.mutate({ id: second });
    expect(viaTrpc).toMatchObject({ workflow_id: second, status: 'cancelled', cancel_at_period_end: true });
    expect(compact(snake(await readGql('subscription', { id: 'String!' }, { id: second })))).toEqual(compact(viaTrpc)); // nulls (past_due_since) compared as absent
    const viaGql = snake(await readGql('startSubscription', { id: 'String!' }, { id: second }, 'Mutation'));
    expect(viaGql).toMatchObject({ workflow_id: second, status: 'active', cancel_at_period_end: false });
    expect(await data(`/v1/workflows/${second}/subscription`)).toEqual(viaGql);
    const cancelled = snake(await readGql('cancelSubscription', { id: 'String!' }, { id: second }, 'Mutation'));
    expect(cancelled).toMatchObject({ status: 'cancelled' });
    expect(await trpc.workflow.startSubscription.mutate({ id: second })).toEqual(viaGql);
    const viaRest = await rest(rig.gw.url, creds, 'DELETE', `/v1/workflows/${second}/subscription`);
    expect(viaRest.body).toEqual(cancelled);
    expect((await rest(rig.gw.url, creds, 'POST', `/v1/workflows/${second}/subscription`)).body).toEqual(viaGql);
    expect(await trpc.workflow.stage.query({ id: second })).toEqual({ id: second, stage: 'production' });
  });

  it('refuses what the domain refuses with the same message and field on each door', async () => {
    /** REST's message names the wire field; GraphQL's names its own. */
    const same = async (restCall: () => Promise<{ status: number; body: any }>, trpcCall: () => Promise<unknown>, gqlOp: string, field: string, gqlField: string, code = 'validation_failed') => {
      const r = await restCall();
      expect(r.status).toBe(422);
      expect(r.body.error).toMatchObject({ code, param: field });
      const t = await trpcFailure(trpcCall());
      expect(t.data).toMatchObject({ httpStatus: 422, apiCode: code, param: field });
      expect(t.message).toBe(r.body.error.message);
      const g = await gql(rig.gw.url, creds, gqlOp);
      expect(g.errors?.[0]).toMatchObject({ message: (r.body.error.message as string).replace(`${field}: `, `${gqlField}: `), extensions: { code: 'BAD_USER_INPUT', apiCode: code, field: gqlField, status: 422 } });
    };
    // email needs an SMTP server, which this gateway has not
    await same(
      () => rest(rig.gw.url, creds, 'PUT', '/v1/settings/alerts', { email_to: ['ops@example.com'] }),
      () => trpc.settings.setAlerts.mutate({ email_to: ['ops@example.com'] }),
      'mutation { setAlertSettings(input: { emailTo: ["ops@example.com"] }) { emailTo } }',
      'email_to',
      'emailTo',
    );
    // a webhook to a private address: the tenant-directed client's catalogued refusal
    await same(
      () => rest(rig.gw.url, creds, 'POST', '/v1/settings/alerts/webhooks', { url: 'http://127.0.0.1:9/hook' }),
      () => trpc.settings.createWebhook.mutate({ url: 'http://127.0.0.1:9/hook' }),
      'mutation { createAlertWebhook(url: "http://127.0.0.1:9/hook") { id } }',
      'url',
      'url',
      'address_refused',
    );
    // a top-up under the minimum
    await same(
      () => rest(rig.gw.url, creds, 'POST', '/v1/billing/topup', { amount_usd: 0.1 }),
      () => trpc.billing.topup.mutate({ amount_usd: 0.1 }),
      'mutation { createTopup(amountUsd: 0.1) { url } }',
      'amount_usd',
      'amountUsd',
    );
    // an auto top-up under the top-up minimum, and one half set
    await same(
      () => rest(rig.gw.url, creds, 'PUT', '/v1/billing/auto-topup', { threshold_usd: 5, amount_usd: 0.5 }),
      () => trpc.billing.setAutoTopup.mutate({ threshold_usd: 5, amount_usd: 0.5 }),
      'mutation { setAutoTopup(thresholdUsd: 5, amountUsd: 0.5) { amountUsd } }',
      'amount_usd',
      'amountUsd',
    );
    await same(
      () => rest(rig.gw.url, creds, 'PUT', '/v1/billing/auto-topup', { threshold_usd: null, amount_usd: 20 }),
      () => trpc.billing.setAutoTopup.mutate({ threshold_usd: null, amount_usd: 20 }),
      'mutation { setAutoTopup(amountUsd: 20) { amountUsd } }',
      'threshold_usd',
      'thresholdUsd',
    );
    expect((await trpc.settings.alerts.query()).email_to).toEqual([]);
  });
});

describe('the GraphQL selection covers the type', () => {
  it('reads every field of Call (the comparison above is over all of them)', () => {
    expect(allFields('Call')).toContain('guardrailFindings');
    expect(allFields('Call')).toContain('usage { promptTokens');
  });
});
