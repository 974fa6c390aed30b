// Tenant isolation and CSRF on all three doors (managed agents, runs and connections too; their
// own doors are tested in full in managed-doors.test.ts): tenant B gets 404 for every id of tenant A on
// REST, tRPC and GraphQL, and nothing of A's changes; a cookie-authenticated write without a
// same-site origin gets 403 on each door and changes nothing, while the same write from the
// gateway's own pages goes through. Unknown paths keep the spec's HTML 404.
import { randomBytes } from 'node:crypto';
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, rest, trpcClient, trpcFailure, type Creds } from './support/doors.ts';
import { startLearningRig } from './support/optimizer.ts';
import type { Rig } from './support/vendor.ts';

let rig: Rig;
let a: Creds;
let b: Creds;
const A = { workflow: '', step: '', agent: '', key: '', recording: '', webhook: '', managedAgent: '', run: '' };
let bWorkflow: string;

type Params = Parameters<OpenAI['chat']['completions']['create']>[0] & { stream?: false };

beforeAll(async () => {
  const started = await startLearningRig();
  rig = started.rig;
  a = { key: rig.tenant.api_key };
  b = { key: started.stranger.api_key };
  bWorkflow = started.stranger.workflow_id;
  A.workflow = rig.tenant.workflow_id;
  const body = { model: 'auto', messages: [{ role: 'user', content: 'plan the trip' }], optimizer: { run: { id: 'run-a' }, step: { id: 'plan' } } };
  await rig.client.chat.completions.create(body as unknown as Params);
  A.step = ((await rest(rig.gw.url, a, 'GET', `/v1/workflows/${A.workflow}/steps`)).body.data as { fingerprint: string }[])[0]!.fingerprint;
  expect((await rest(rig.gw.url, a, 'POST', `/v1/workflows/${A.workflow}/report/finalize`)).status).toBe(201);
  const agent = (await rest(rig.gw.url, a, 'POST', '/v1/agents', { name: 'second' })).body as { id: string; key_id: string };
  A.agent = agent.id;
  A.key = agent.key_id;
  // A's recordings (kept in full), settings with no id (capture, guard, alerts), a webhook endpoint and a subscription
  expect((await rest(rig.gw.url, a, 'PUT', '/v1/settings/capture', { content: 'full', retention_days: 9 })).status).toBe(200);
  await rig.client.chat.completions.create({ ...body, messages: [{ role: 'user', content: 'plan the return' }] } as unknown as Params);
  A.recording = ((await rest(rig.gw.url, a, 'GET', `/v1/workflows/${A.workflow}/recordings`)).body.data as { id: string }[])[0]!.id;
  expect((await rest(rig.gw.url, a, 'PUT', '/v1/settings/guard', { redact_pii: true, injection: 'block' })).status).toBe(200);
  expect((await rest(rig.gw.url, a, 'PUT', '/v1/settings/alerts', { spend_cap_usd: 42 })).status).toBe(200);
  A.webhook = ((await rest(rig.gw.url, a, 'POST', '/v1/settings/alerts/webhooks', { url: 'https://hooks.example.com/a' })).body as { id: string }).id;
  await rig.gw.services.billing.credit(rig.tenant.account_id, 49_000_000, 'the plan, paid from the wallet without a payment processor');
  expect((await rest(rig.gw.url, a, 'POST', `/v1/workflows/${A.workflow}/subscription`)).status).toBe(201);
  // A's connection, managed agent and run
  expect((await rest(rig.gw.url, a, 'PUT', '/v1/connections/crm', { base_url: 'https://93.184.215.14/v3', secret: 'crm-secret-0123456789' })).status).toBe(201);
  A.managedAgent = ((await rest(rig.gw.url, a, 'POST', '/v1/managed-agents', { name: 'replier', config: { kind: 'chain', steps: [{ name: 'one', prompt: 'Reply to {{input}}' }] } })).body as { id: string }).id;
  A.run = ((await rest(rig.gw.url, a, 'POST', `/v1/managed-agents/${A.managedAgent}/runs`, { input: 'hello' })).body as { id: string }).id;
  // the run's own calls land in A's steps: let it end or wait for approval before the tests compare A's state
  for (let t = 0; t < 200; t++) {
    const { status } = (await rest(rig.gw.url, a, 'GET', `/v1/managed-runs/${A.run}`)).body as { status: string };
    if (status !== 'running') break;
    await new Promise((r) => setTimeout(r, 100));
  }
}, 120_000);

afterAll(async () => {
  await rig?.close();
});

/** A's state as A reads it: what B's attempts must leave as it was. */
async function stateOfA() {
  const read = async (path: string) => (await rest(rig.gw.url, a, 'GET', path)).body;
  return {
    steps: await read(`/v1/workflows/${A.workflow}/steps`),
    report: (await read(`/v1/workflows/${A.workflow}/report`)).versions,
    discovery: (await read(`/v1/proxy-agents/${A.workflow}/discovery`)).enabled,
    keys: await read(`/v1/agents/${A.agent}/keys`),
    stage: await read(`/v1/workflows/${A.workflow}/stage`),
    recordings: await read(`/v1/workflows/${A.workflow}/recordings`),
    subscription: await read(`/v1/workflows/${A.workflow}/subscription`),
    alerts: await read('/v1/settings/alerts'),
    capture: await read('/v1/settings/capture'),
    guard: await read('/v1/settings/guard'),
    connections: await read('/v1/connections'),
    managedAgents: await read('/v1/managed-agents'),
    runs: (await read(`/v1/managed-agents/${A.managedAgent}/runs`)).data.map((r: { id: string }) => r.id),
  };
}

describe("tenant B and tenant A's ids", () => {
  it('REST answers 404 on every route that takes an id', async () => {
    const before = await stateOfA();
    const w = A.workflow;
    const cases: [string, string, unknown?][] = [
      ['GET', `/v1/calls?agent=${w}`],
      ['GET', `/v1/workflows/${w}/stage`],
      ['POST', `/v1/workflows/${w}/stage`, { stage: 'production' }],
      ['GET', `/v1/workflows/${w}/report`],
      ['GET', `/v1/workflows/${w}/report?version=1`],
      ['POST', `/v1/workflows/${w}/report/finalize`],
      ['GET', `/v1/workflows/${w}/report/lock`],
      ['GET', `/v1/workflows/${w}/events`],
      ['GET', `/v1/workflows/${w}/steps`],
      ['PATCH', `/v1/workflows/${w}/steps/${A.step}`, { excluded: true }],
      ['GET', `/v1/workflows/${w}/steps/${A.step}/calls`],
      ['GET', `/v1/agents/${w}/graph`],
      ['GET', `/v1/proxy-agents/${w}/discovery`],
      ['PUT', `/v1/proxy-agents/${w}/discovery`, { enabled: true }],
      ['GET', `/v1/proxy-agents/${w}/discovery/report`],
      ['GET', `/v1/agents/${A.agent}/keys`],
      ['POST', `/v1/agents/${A.agent}/keys`],
      ['DELETE', `/v1/agents/${A.agent}/keys/${A.key}`],
      ['POST', '/v1/outcomes', { run_id: 'run-a', step_id: 'plan', signals: { score: 0 } }],
      ['GET', `/v1/workflows/${w}/recordings`],
      ['GET', `/v1/workflows/${w}/recordings?step=${A.step}`],
      ['GET', `/v1/workflows/${w}/recordings/${A.recording}`],
      ['GET', `/v1/workflows/${bWorkflow}/recordings/${A.recording}`],
      ['GET', `/v1/workflows/${w}/subscription`],
      ['POST', `/v1/workflows/${w}/subscription`],
      ['DELETE', `/v1/workflows/${w}/subscription`],
      ['POST', `/v1/settings/alerts/webhooks/${A.webhook}/rotate`],
      ['DELETE', `/v1/settings/alerts/webhooks/${A.webhook}`],
      ['GET', '/v1/connections/crm'],
      ['DELETE', '/v1/connections/crm'],
      ['GET', `/v1/managed-agents/${A.managedAgent}/runs`],
      ['POST', `/v1/managed-agents/${A.managedAgent}/runs`, { input: 'x' }],
      ['GET', `/v1/managed-runs/${A.run}`],
      ['GET', `/v1/managed-runs/${A.run}/events`],
      ['POST', `/v1/managed-runs/${A.run}/actions/act_x/execute`],
      ['PUT', '/v1/settings/limits', { keys: [{ key_id: A.key, requests_per_minute: 1 }] }],
    ];
    for (const [method, path, body] of cases) {
      const r = await rest(rig.gw.url, b, method, path, body);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body.error.code, `${method} ${path}`).toBe('not_found');
    }
    expect(await stateOfA()).toEqual(before);
  });

  it('tRPC answers NOT_FOUND (404) on every procedure that takes an id', async () => {
    const before = await stateOfA();
    const t = trpcClient(rig.gw.url, b);
    const id = A.workflow;
    const calls: [string, () => Promise<unknown>][] = [
      ['calls.list', () => t.calls.list.query({ agent: id })],
      ['workflow.stage', () => t.workflow.stage.query({ id })],
      ['workflow.moveTo', () => t.workflow.moveTo.mutate({ id, stage: 'production' })],
      ['workflow.report', () => t.workflow.report.query({ id })],
      ['workflow.report v1', () => t.workflow.report.query({ id, version: 1 })],
      ['workflow.finalize', () => t.workflow.finalize.mutate({ id })],
      ['workflow.lockfile', () => t.workflow.lockfile.query({ id })],
      ['workflow.events', () => t.workflow.events.query({ id })],
      ['workflow.steps', () => t.workflow.steps.query({ id })],
      ['workflow.patchStep', () => t.workflow.patchStep.mutate({ id, fingerprint: A.step, excluded: true })],
      ['workflow.stepCalls', () => t.workflow.stepCalls.query({ id, fingerprint: A.step })],
      ['workflow.graph', () => t.workflow.graph.query({ id })],
      ['discovery.progress', () => t.discovery.progress.query({ id })],
      ['discovery.set', () => t.discovery.set.mutate({ id, enabled: true })],
      ['discovery.report', () => t.discovery.report.query({ id })],
      ['agents.keys', () => t.agents.keys.query({ id: A.agent })],
      ['agents.createKey', () => t.agents.createKey.mutate({ id: A.agent })],
      ['agents.revokeKey', () => t.agents.revokeKey.mutate({ id: A.agent, key_id: A.key })],
      ['outcomes.report', () => t.outcomes.report.mutate({ run_id: 'run-a', step_id: 'plan', signals: { score: 0 } })],
      ['workflow.recordings', () => t.workflow.recordings.query({ id })],
      ['workflow.recordings of a step', () => t.workflow.recordings.query({ id, step: A.step })],
      ['workflow.recording', () => t.workflow.recording.query({ id, recording_id: A.recording })],
      ['workflow.recording under B', () => t.workflow.recording.query({ id: bWorkflow, recording_id: A.recording })],
      ['workflow.subscription', () => t.workflow.subscription.query({ id })],
      ['workflow.startSubscription', () => t.workflow.startSubscription.mutate({ id })],
      ['workflow.cancelSubscription', () => t.workflow.cancelSubscription.mutate({ id })],
      ['settings.rotateWebhook', () => t.settings.rotateWebhook.mutate({ id: A.webhook })],
      ['settings.removeWebhook', () => t.settings.removeWebhook.mutate({ id: A.webhook })],
      ['connections.remove', () => t.connections.remove.mutate({ name: 'crm' })],
      ['managedAgents.runs', () => t.managedAgents.runs.query({ id: A.managedAgent })],
      ['managedAgents.startRun', () => t.managedAgents.startRun.mutate({ id: A.managedAgent, input: 'x' })],
      ['managedRuns.get', () => t.managedRuns.get.query({ id: A.run })],
      ['managedRuns.events', () => t.managedRuns.events.query({ id: A.run })],
      ['managedRuns.execute', () => t.managedRuns.execute.mutate({ id: A.run, action: 'act_x' })],
      ['settings.setLimits', () => t.settings.setLimits.mutate({ keys: [{ key_id: A.key, requests_per_minute: 1 }] })],
    ];
    for (const [name, call] of calls) {
      const err = await trpcFailure(call());
      expect(err.data, name).toMatchObject({ code: 'NOT_FOUND', httpStatus: 404, apiCode: 'not_found' });
    }
    expect(await stateOfA()).toEqual(before);
  });

  it('GraphQL answers NOT_FOUND (404) on every field that takes an id', async () => {
    const before = await stateOfA();
    const id = JSON.stringify(A.workflow);
    const step = JSON.stringify(A.step);
    const agent = JSON.stringify(A.agent);
    const ops = [
      `query { calls(agent: ${id}) { id } }`,
      `query { workflowStage(id: ${id}) { id } }`,
      `mutation { moveWorkflow(id: ${id}, stage: production) { id } }`,
      `query { report(id: ${id}) { version } }`,
      `query { report(id: ${id}, version: 1) { version } }`,
      `mutation { finalizeReport(id: ${id}) { version } }`,
      `query { lockfile(id: ${id}) { workflowId } }`,
      `query { events(id: ${id}) { id } }`,
      `query { steps(id: ${id}) { fingerprint } }`,
      `mutation { patchStep(id: ${id}, fingerprint: ${step}, excluded: true) { fingerprint } }`,
      `query { stepCalls(id: ${id}, fingerprint: ${step}) { id } }`,
      `query { graph(id: ${id}) { agent } }`,
      `query { discovery(id: ${id}) { enabled } }`,
      `mutation { setDiscovery(id: ${id}, enabled: true) { enabled } }`,
      `query { discoveryReport(id: ${id}) { agent } }`,
      `query { agentKeys(id: ${agent}) { id } }`,
      `mutation { createAgentKey(id: ${agent}) { id } }`,
      `mutation { revokeAgentKey(id: ${agent}, keyId: ${JSON.stringify(A.key)}) { id } }`,
      `mutation { reportOutcome(runId: "run-a", stepId: "plan", signals: { score: 0 }) { runId } }`,
      `query { recordings(id: ${id}) { nextCursor } }`,
      `query { recordings(id: ${id}, step: ${step}) { nextCursor } }`,
      `query { recording(id: ${id}, recordingId: ${JSON.stringify(A.recording)}) { id } }`,
      `query { recording(id: ${JSON.stringify(bWorkflow)}, recordingId: ${JSON.stringify(A.recording)}) { id } }`,
      `query { subscription(id: ${id}) { status } }`,
      `mutation { startSubscription(id: ${id}) { status } }`,
      `mutation { cancelSubscription(id: ${id}) { status } }`,
      `mutation { rotateAlertWebhook(id: ${JSON.stringify(A.webhook)}) { id } }`,
      `mutation { removeAlertWebhook(id: ${JSON.stringify(A.webhook)}) { id } }`,
      'mutation { removeConnection(name: "crm") { name } }',
      `query { managedAgentRuns(id: ${JSON.stringify(A.managedAgent)}) { id } }`,
      `mutation { startManagedRun(id: ${JSON.stringify(A.managedAgent)}, input: "x") { id } }`,
      `query { managedRun(id: ${JSON.stringify(A.run)}) { id } }`,
      `query { managedRunEvents(id: ${JSON.stringify(A.run)}) { seq } }`,
      `mutation { executeManagedAction(id: ${JSON.stringify(A.run)}, action: "act_x") { replayed } }`,
      `mutation { setRateLimits(input: { keys: [{ keyId: ${JSON.stringify(A.key)}, requestsPerMinute: 1 }] }) { tenant { requestsPerMinute } } }`,
    ];
    for (const op of ops) {
      const r = await gql(rig.gw.url, b, op);
      expect(r.data, op).toBeNull();
      expect(r.errors?.[0]?.extensions, op).toMatchObject({ code: 'NOT_FOUND', apiCode: 'not_found', status: 404 });
    }
    expect(await stateOfA()).toEqual(before);
  });
});

describe("what has no id reads as B's own on every door", () => {
  it("capture, guard and alert settings, billing and statements: B's, never A's", async () => {
    const t = trpcClient(rig.gw.url, b);
    const month = new Date().toISOString().slice(0, 10);
    const restRead = async (path: string) => (await rest(rig.gw.url, b, 'GET', path)).body;
    const g = await gql(rig.gw.url, b, `query { captureSettings { retentionDays } guardSettings { injection } alertSettings { spendCapUsd webhooks { id } } billing { ledger { kind callId } subscriptions { workflowId } } statements(from: "${month}") { calls } }`);
    expect(g.errors).toBeUndefined();
    const { billing, ...settings } = g.data;
    expect(settings).toEqual({
      captureSettings: { retentionDays: 30 },
      guardSettings: { injection: 'allow' },
      alertSettings: { spendCapUsd: null, webhooks: [] },
      statements: [{ calls: 0 }],
    });
    // B's books hold at most its own dev allowance grant: none of A's calls, no subscription
    expect(billing.subscriptions).toEqual([]);
    expect(billing.ledger.filter((e: { kind: string; callId: string | null }) => e.kind !== 'allowance' || e.callId !== null)).toEqual([]);
    expect(await restRead('/v1/settings/capture')).toMatchObject({ retention_days: 30 });
    expect(await t.settings.capture.query()).toMatchObject({ retention_days: 30 });
    expect(await restRead('/v1/settings/guard')).toMatchObject({ injection: 'allow' });
    expect(await t.settings.guard.query()).toMatchObject({ injection: 'allow' });
    expect(await restRead('/v1/settings/alerts')).toMatchObject({ spend_cap_usd: null, webhooks: [] });
    expect(await t.settings.alerts.query()).toMatchObject({ spend_cap_usd: null, webhooks: [] });
    for (const view of [await restRead('/v1/billing'), await t.billing.view.query()]) {
      expect(view.subscriptions).toEqual([]);
      expect(view.ledger.map((e: { kind: string }) => e.kind)).toEqual(billing.ledger.map((e: { kind: string }) => e.kind));
    }
    expect((await restRead(`/v1/billing/statements?from=${month}`)).data).toEqual([expect.objectContaining({ calls: 0 })]);
    expect(await t.billing.statements.query({ from: month })).toEqual([expect.objectContaining({ calls: 0 })]);
  });
});

describe('a cookie-authenticated write without a same-site origin', () => {
  let cookie: string;
  const tenant = { email: `${randomBytes(6).toString('hex')}@example.com`, api_key: '' };

  beforeAll(async () => {
    const r = await rest(rig.gw.url, {}, 'POST', '/v1/signup', { company: 'Cookie Co', email: tenant.email });
    tenant.api_key = r.body.api_key;
    const login = await fetch(`${rig.gw.url}/v1/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(tenant) });
    expect(login.status).toBe(200);
    cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  });

  const floor = async () => (await rest(rig.gw.url, { key: tenant.api_key }, 'GET', '/v1/settings/routing')).body.quality_floor ?? null;
  const crossSite: Record<string, string>[] = [{}, { origin: 'http://evil.example' }, { 'sec-fetch-site': 'cross-site' }];
  const sameSite = (): Record<string, string>[] => [{ 'sec-fetch-site': 'same-origin' }, { origin: rig.gw.url }];

  it('is refused with 403 csrf_rejected on REST, and the same write from our pages goes through', async () => {
    const before = await floor();
    for (const headers of crossSite) {
      const r = await rest(rig.gw.url, { cookie, headers }, 'PUT', '/v1/settings/routing', { quality_floor: 0.5 });
      expect(r.status, JSON.stringify(headers)).toBe(403);
      expect(r.body.error.code).toBe('csrf_rejected');
    }
    expect(await floor()).toBe(before);
    expect((await rest(rig.gw.url, { cookie }, 'GET', '/v1/settings/routing')).status).toBe(200);
    for (const headers of sameSite()) expect((await rest(rig.gw.url, { cookie, headers }, 'PUT', '/v1/settings/routing', { quality_floor: 0.91 })).status).toBe(200);
    expect(await floor()).toBe(0.91);
  });

  it('is refused with 403 csrf_rejected on tRPC, while the cookie reads', async () => {
    const before = await floor();
    for (const headers of crossSite) {
      const err = await trpcFailure(trpcClient(rig.gw.url, { cookie, headers }).settings.setRouting.mutate({ quality_floor: 0.5 }));
      expect(err.data, JSON.stringify(headers)).toMatchObject({ code: 'FORBIDDEN', httpStatus: 403, apiCode: 'csrf_rejected' });
    }
    expect(await floor()).toBe(before);
    expect((await trpcClient(rig.gw.url, { cookie }).settings.routing.query()).quality_floor ?? null).toBe(before);
    for (const headers of sameSite()) await trpcClient(rig.gw.url, { cookie, headers }).settings.setRouting.mutate({ quality_floor: 0.92 });
    expect(await floor()).toBe(0.92);
  });

  it('is refused with 403 csrf_rejected on GraphQL, before anything runs, while the cookie reads', async () => {
    const write = 'mutation($f: Float) { setRoutingSettings(input: { qualityFloor: $f }) { qualityFloor } }';
    const before = await floor();
    for (const headers of crossSite) {
      const r = await gql(rig.gw.url, { cookie, headers }, write, { f: 0.5 });
      expect(r.status, JSON.stringify(headers)).toBe(403);
      expect(r.data).toBeNull();
      expect(r.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', apiCode: 'csrf_rejected', status: 403 });
    }
    expect(await floor()).toBe(before);
    const read = await gql(rig.gw.url, { cookie }, '{ routingSettings { qualityFloor } }');
    expect(read.data.routingSettings.qualityFloor).toBe(before);
    for (const headers of sameSite()) expect((await gql(rig.gw.url, { cookie, headers }, write, { f: 0.93 })).errors).toBeUndefined();
    expect(await floor()).toBe(0.93);
  });

  it('is refused with 403 csrf_rejected on every write of capture, guard, alerts, billing, connections and managed agents, on each door, and changes nothing', async () => {
    const bearer = { key: tenant.api_key };
    const webhook = ((await rest(rig.gw.url, bearer, 'POST', '/v1/settings/alerts/webhooks', { url: 'https://hooks.example.com/cookie' })).body as { id: string }).id;
    const workflow = ((await rest(rig.gw.url, bearer, 'GET', '/v1/workflows')).body.data as { id: string }[])[0]!.id;
    const state = async () => ({
      capture: (await rest(rig.gw.url, bearer, 'GET', '/v1/settings/capture')).body,
      guard: (await rest(rig.gw.url, bearer, 'GET', '/v1/settings/guard')).body,
      alerts: (await rest(rig.gw.url, bearer, 'GET', '/v1/settings/alerts')).body,
      billing: (await rest(rig.gw.url, bearer, 'GET', '/v1/billing')).body,
      stage: (await rest(rig.gw.url, bearer, 'GET', `/v1/workflows/${workflow}/stage`)).body,
      connections: (await rest(rig.gw.url, bearer, 'GET', '/v1/connections')).body,
      managedAgents: (await rest(rig.gw.url, bearer, 'GET', '/v1/managed-agents')).body,
    });
    const before = await state();
    const writes: { rest: [string, string, unknown?]; trpc: (t: ReturnType<typeof trpcClient>) => Promise<unknown>; gql: string }[] = [
      { rest: ['PUT', '/v1/settings/capture', { content: 'none' }], trpc: (t) => t.settings.setCapture.mutate({ content: 'none' }), gql: 'mutation { setCaptureSettings(input: { content: none }) { content } }' },
      { rest: ['PUT', '/v1/settings/guard', { redact_pii: true }], trpc: (t) => t.settings.setGuard.mutate({ redact_pii: true }), gql: 'mutation { setGuardSettings(input: { redactPii: true }) { redactPii } }' },
      { rest: ['PUT', '/v1/settings/alerts', { spend_cap_usd: 1 }], trpc: (t) => t.settings.setAlerts.mutate({ spend_cap_usd: 1 }), gql: 'mutation { setAlertSettings(input: { spendCapUsd: 1 }) { spendCapUsd } }' },
      {
        rest: ['POST', '/v1/settings/alerts/webhooks', { url: 'https://hooks.example.com/evil' }],
        trpc: (t) => t.settings.createWebhook.mutate({ url: 'https://hooks.example.com/evil' }),
        gql: 'mutation { createAlertWebhook(url: "https://hooks.example.com/evil") { id } }',
      },
      { rest: ['POST', `/v1/settings/alerts/webhooks/${webhook}/rotate`], trpc: (t) => t.settings.rotateWebhook.mutate({ id: webhook }), gql: `mutation { rotateAlertWebhook(id: "${webhook}") { secret } }` },
      { rest: ['DELETE', `/v1/settings/alerts/webhooks/${webhook}`], trpc: (t) => t.settings.removeWebhook.mutate({ id: webhook }), gql: `mutation { removeAlertWebhook(id: "${webhook}") { id } }` },
      { rest: ['POST', '/v1/billing/topup', { amount_usd: 5 }], trpc: (t) => t.billing.topup.mutate({ amount_usd: 5 }), gql: 'mutation { createTopup(amountUsd: 5) { url } }' },
      { rest: ['POST', `/v1/workflows/${workflow}/subscription`], trpc: (t) => t.workflow.startSubscription.mutate({ id: workflow }), gql: `mutation { startSubscription(id: "${workflow}") { status } }` },
      { rest: ['DELETE', `/v1/workflows/${workflow}/subscription`], trpc: (t) => t.workflow.cancelSubscription.mutate({ id: workflow }), gql: `mutation { cancelSubscription(id: "${workflow}") { status } }` },
      {
        rest: ['PUT', '/v1/connections/evil', { base_url: 'https://93.184.215.14/evil' }],
        trpc: (t) => t.connections.put.mutate({ name: 'evil', base_url: 'https://93.184.215.14/evil' }),
        gql: 'mutation { putConnection(name: "evil", baseUrl: "https://93.184.215.14/evil") { name } }',
      },
      {
        rest: ['POST', '/v1/managed-agents', { name: 'evil', config: { kind: 'chain', steps: [{ name: 'one', prompt: 'x' }] } }],
        trpc: (t) => t.managedAgents.create.mutate({ name: 'evil', config: { kind: 'chain', steps: [{ name: 'one', prompt: 'x' }] } }),
        gql: 'mutation { createManagedAgent(name: "evil", config: { kind: "chain", steps: [{ name: "one", prompt: "x" }] }) { id } }',
      },
    ];
    for (const headers of crossSite) {
      const tag = JSON.stringify(headers);
      for (const w of writes) {
        const [method, path, body] = w.rest;
        const r = await rest(rig.gw.url, { cookie, headers }, method, path, body);
        expect(r.status, `${method} ${path} ${tag}`).toBe(403);
        expect(r.body.error.code).toBe('csrf_rejected');
        const err = await trpcFailure(w.trpc(trpcClient(rig.gw.url, { cookie, headers })));
        expect(err.data, `${w.gql} ${tag}`).toMatchObject({ code: 'FORBIDDEN', httpStatus: 403, apiCode: 'csrf_rejected' });
        const g = await gql(rig.gw.url, { cookie, headers }, w.gql);
        expect(g.status, `${w.gql} ${tag}`).toBe(403);
        expect(g.data).toBeNull();
        expect(g.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', apiCode: 'csrf_rejected', status: 403 });
      }
    }
    expect(await state()).toEqual(before);
    // the cookie reads them, and from our pages it writes them
    expect((await trpcClient(rig.gw.url, { cookie }).settings.capture.query()).content).toBe(before.capture.content);
    const [sameOrigin] = sameSite();
    expect((await rest(rig.gw.url, { cookie, headers: sameOrigin }, 'PUT', '/v1/settings/capture', { content: 'none' })).status).toBe(200);
    expect(await trpcClient(rig.gw.url, { cookie, headers: sameOrigin }).settings.setGuard.mutate({ redact_pii: true })).toMatchObject({ redact_pii: true });
    expect((await gql(rig.gw.url, { cookie, headers: sameOrigin }, 'mutation { setAlertSettings(input: { spendCapUsd: 1 }) { spendCapUsd } }')).data).toEqual({ setAlertSettings: { spendCapUsd: 1 } });
    const after = await state();
    expect([after.capture.content, after.guard.redact_pii, after.alerts.spend_cap_usd]).toEqual(['none', true, 1]);
  });

  it('needs a credential on tRPC and GraphQL: no key and no cookie is 401', async () => {
    const err = await trpcFailure(trpcClient(rig.gw.url, {}).agents.list.query());
    expect(err.data).toMatchObject({ httpStatus: 401, apiCode: 'missing_api_key' });
    const r = await gql(rig.gw.url, {}, '{ agents { id } }');
    expect(r.status).toBe(401);
    expect(r.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    for (const billing of [() => trpcClient(rig.gw.url, {}).billing.view.query(), () => trpcClient(rig.gw.url, {}).settings.capture.query()]) {
      expect((await trpcFailure(billing())).data).toMatchObject({ httpStatus: 401, apiCode: 'missing_api_key' });
    }
  });

  it('answers the estimate without a credential on tRPC, as on REST (spec 5)', async () => {
    const viaRest = await rest(rig.gw.url, {}, 'POST', '/v1/estimate', { monthly_spend: 5000 });
    expect(viaRest.status).toBe(200);
    expect(await trpcClient(rig.gw.url, {}).billing.estimate.query({ monthly_spend: 5000 })).toEqual(viaRest.body);
  });
});

describe('unknown paths', () => {
  it("answer the spec's HTML 404 page, beside the three doors", async () => {
    for (const path of ['/v1/no-such-route', '/v1/workflows/x/nothing-here', '/no/such/page']) {
      const r = await fetch(`${rig.gw.url}${path}`);
      expect(r.status, path).toBe(404);
      expect(r.headers.get('content-type'), path).toMatch(/^text\/html/);
      expect(await r.text(), path).toMatch(/<html/i);
    }
  });
});
