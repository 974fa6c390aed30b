// Every control-plane capability is on the SDK's REST client: the test walks the server's
// capability set (apps/api/src/capabilities) and fails for any capability with a REST door that
// the table below does not call through a named SDK method. Each is called once, in order,
// against a real gateway (an OpenAI mock as its vendor, a loopback server as the connection
// managed agents act on), and each request the SDK sent is checked to be that capability's
// route. A few answer a catalogue refusal here by design (no payment provider is configured, a
// workflow has no subscription): those are listed with the code the route answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capabilities } from '../../../apps/api/src/capabilities/index.ts';
import { capabilityList } from '../../../apps/api/src/capabilities/capability.ts';
import { routeOnMockOpenAI, startRig, type Rig } from '../../../apps/api/test/support/vendor.ts';
import { startLoopback, type Loopback } from '../../../apps/api/test/support/loopback.ts';
import { OptimizerClient, isOptimizerError } from '../src/index.ts';
import { createTrpcClient } from '../src/trpc/index.ts';
import { renderRestRoutes, restRoutesPath } from '../../../scripts/sdk-rest-routes.ts';
import { readFileSync } from 'node:fs';

const sent: string[] = [];

/** The SDK's fetch, recording each request's method and path. */
const recording: typeof fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  sent.push(`${init?.method ?? 'GET'} ${url.pathname}`);
  return fetch(input, init);
};

let rig: Rig;
let target: Loopback;
let client: OptimizerClient;

beforeAll(async () => {
  target = await startLoopback((_req, res) => {
    res.writeHead(201, { 'content-type': 'application/json' });
    res.end('{"ticket":"T-1"}');
  });
  rig = await startRig({ env: { OUTBOUND_ALLOW_LIST: '127.0.0.1/32' } });
  expect((await routeOnMockOpenAI(rig)).status).toBe(200);
  client = new OptimizerClient({ baseURL: rig.gw.url, apiKey: rig.tenant.api_key, fetch: recording });
  // managed Production without a payment processor is paid from the wallet
  await rig.gw.services.billing.credit(rig.tenant.account_id, 49_000_000, 'the plan');
});
afterAll(async () => {
  await rig?.close();
  await target?.close();
});

/** What the earlier calls made, for the later ones. */
const made: Record<string, string> = {};
const wf = () => rig.tenant.workflow_id;

async function waitForRun(id: string, statuses: string[]) {
  for (let i = 0; i < 300; i++) {
    const run = await client.managedRuns.get(id);
    if (statuses.includes(run.status)) return run;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`run ${id} never reached ${statuses.join(' or ')}`);
}

type Entry = [name: string, call: () => Promise<unknown>, refusal?: string];

/** Each capability, through the SDK's named method, in an order where each finds what it needs. */
const table: Entry[] = [
  ['settings.setCapture', () => client.settings.capture.put({ content: 'full' })],
  ['settings.capture', async () => expect((await client.settings.capture.get()).content).toBe('full')],
  [
    'outcomes.report',
    async () => {
      // a routed, annotated call first: a step, a call, a recording and a run to report on
      const run = client.run({ id: 'sdk-run-1' });
      const answer = await run.complete('triage', { model: 'auto', messages: [{ role: 'user', content: 'Classify: my invoice is wrong' }] });
      made.call = answer.call_id!;
      await rig.gw.learned();
      return client.outcomes.report({ run_id: 'sdk-run-1', step_id: 'triage', signals: { schema_valid: true } });
    },
  ],
  ['calls.list', async () => expect((await client.calls.list({ limit: 5 })).map((c) => c.id)).toContain(made.call)],
  ['calls.get', async () => expect((await client.calls.get(made.call!)).id).toBe(made.call)],
  ['calls.activity', async () => expect((await client.activity.list({ limit: 5 })).length).toBeGreaterThan(0)],
  ['savings', async () => expect((await client.savings.get()).calls).toBeGreaterThan(0)],
  ['savingsSeries', async () => expect(Array.isArray((await client.savings.series({ days: 7, points: 4 })).points)).toBe(true)],
  ['breakdown', async () => expect(Array.isArray((await client.savings.breakdown({ days: 7 })).by_step)).toBe(true)],
  ['workflows', async () => expect((await client.workflows.list()).map((w) => w.id)).toContain(wf())],
  [
    'workflow.steps',
    async () => {
      const steps = await client.workflows.steps.list(wf());
      made.fingerprint = steps.find((s) => s.label === 'triage')!.fingerprint;
    },
  ],
  ['workflow.patchStep', async () => expect((await client.workflows.steps.update(wf(), made.fingerprint!, { excluded: false })).fingerprint).toBe(made.fingerprint)],
  ['workflow.stepCalls', async () => expect((await client.workflows.steps.calls(wf(), made.fingerprint!)).length).toBeGreaterThan(0)],
  ['workflow.stage', async () => expect((await client.workflows.stage(wf())).stage).toBeTypeOf('string')],
  ['workflow.report', async () => expect(await client.workflows.report(wf())).toHaveProperty('steps')],
  ['workflow.finalize', async () => expect((await client.workflows.finalize(wf())).version).toBeGreaterThan(0)],
  ['workflow.lockfile', async () => expect(await client.workflows.lockfile(wf())).toHaveProperty('steps')],
  ['workflow.events', async () => expect(Array.isArray(await client.workflows.events(wf(), { days: 1 }))).toBe(true)],
  [
    'workflow.recordings',
    async () => {
      const page = await client.workflows.recordings(wf(), { limit: 5 });
      expect(page.data.map((r) => r.id)).toContain(made.call);
    },
  ],
  ['workflow.recording', async () => expect((await client.workflows.recording(wf(), made.call!)).id).toBe(made.call)],
  ['workflow.moveTo', () => client.workflows.moveTo(wf(), 'production'), 'subscription_required'],
  [
    'agents.create',
    async () => {
      const agent = await client.agents.create({ name: 'sdk-agent' });
      made.agent = agent.id;
    },
  ],
  ['agents.list', async () => expect((await client.agents.list()).map((a) => a.id)).toContain(made.agent)],
  [
    'agents.createKey',
    async () => {
      made.key = (await client.agents.createKey(made.agent!)).id;
    },
  ],
  ['agents.keys', async () => expect((await client.agents.listKeys(made.agent!)).length).toBeGreaterThan(0)],
  ['agents.revokeKey', () => client.agents.revokeKey(made.agent!, made.key!)],
  ['workflow.graph', async () => expect(await client.agents.graph(made.agent!)).toHaveProperty('nodes')],
  ['discovery.progress', async () => expect(await client.discovery.get(made.agent!)).toBeTruthy()],
  ['discovery.set', async () => expect(await client.discovery.setEnabled(made.agent!, true)).toBeTruthy()],
  ['discovery.report', async () => expect(await client.discovery.report(made.agent!)).toBeTruthy()],
  ['settings.routing', async () => expect((await client.settings.routing.get()).allowed_providers).toEqual(['openai'])],
  ['settings.setRouting', async () => expect((await client.settings.routing.put({ quality_floor: 0.95 })).quality_floor).toBe(0.95)],
  ['settings.putProviderKey', () => client.providerKeys.set('anthropic', 'sk-ant-sdk-test-key-0123456789')],
  ['settings.providerKeys', async () => expect((await client.providerKeys.list()).map((k) => k.provider)).toContain('anthropic')],
  ['settings.removeProviderKey', () => client.providerKeys.remove('anthropic')],
  ['settings.setGuard', async () => expect((await client.settings.guard.put({ redact_pii: true })).redact_pii).toBe(true)],
  ['settings.guard', async () => expect((await client.settings.guard.get()).redact_pii).toBe(true)],
  ['settings.setLimits', async () => expect((await client.settings.limits.put({ tenant: { requests_per_minute: 10_000 } })).tenant.requests_per_minute).toBe(10_000)],
  ['settings.limits', async () => expect((await client.settings.limits.get()).tenant.requests_per_minute).toBe(10_000)],
  ['settings.setAlerts', async () => expect((await client.settings.alerts.put({ spend_cap_usd: 100 })).spend_cap_usd).toBe(100)],
  [
    'settings.createWebhook',
    async () => {
      const hook = await client.settings.alerts.createWebhook({ url: `${target.url}/alerts` });
      expect(hook.secret).toMatch(/\S{16,}/);
      made.webhook = hook.id;
    },
  ],
  ['settings.alerts', async () => expect((await client.settings.alerts.get()).webhooks.map((w) => w.id)).toContain(made.webhook)],
  ['settings.rotateWebhook', async () => expect((await client.settings.alerts.rotateWebhook(made.webhook!)).id).toBe(made.webhook)],
  ['settings.removeWebhook', () => client.settings.alerts.removeWebhook(made.webhook!)],
  ['billing.view', async () => expect(await client.billing.view()).toHaveProperty('balances')],
  ['billing.statements', async () => expect(Array.isArray(await client.billing.statements())).toBe(true)],
  ['billing.savingsLedger', async () => expect(await client.billing.savingsLedger()).toHaveProperty('totals')],
  ['billing.setAutoTopup', async () => expect(await client.billing.setAutoTopup({ threshold_usd: null, amount_usd: null })).toBeTruthy()],
  ['billing.topup', () => client.billing.topup({ amount_usd: 20 }), 'payment_unavailable'],
  ['billing.estimate', async () => expect(await new OptimizerClient({ baseURL: rig.gw.url, fetch: recording }).billing.estimate({ monthly_spend: 10_000 })).toBeTruthy()],
  ['connections.put', async () => expect((await client.connections.put('tickets', { base_url: `${target.url}/api`, secret: 'tk-secret-0123456789' })).name).toBe('tickets')],
  ['connections.get', async () => expect((await client.connections.get('tickets')).name).toBe('tickets')],
  ['connections.list', async () => expect((await client.connections.list()).map((c) => c.name)).toContain('tickets')],
  [
    'managedAgents.create',
    async () => {
      made.managed = (await client.managedAgents.create({ name: 'ticketer', config: { kind: 'action', model: 'gpt-4.1-mini', connection: 'tickets', instructions: 'File a ticket for the problem described.' } })).id;
    },
  ],
  ['managedAgents.list', async () => expect((await client.managedAgents.list()).map((a) => a.id)).toContain(made.managed)],
  [
    'managedAgents.startRun',
    async () => {
      rig.vendor.script({ tool_calls: [{ name: 'tickets', arguments: JSON.stringify({ method: 'POST', path: '/tickets', body: { title: 'Printer on fire' } }) }] });
      made.run = (await client.managedAgents.startRun(made.managed!, { input: 'The printer is on fire.' })).id;
    },
  ],
  [
    'managedRuns.get',
    async () => {
      const run = await waitForRun(made.run!, ['waiting_approval', 'completed', 'failed']);
      expect(run.status).toBe('waiting_approval');
      made.action = run.actions[0]!.id;
    },
  ],
  ['managedRuns.execute', async () => expect(await client.managedRuns.execute(made.run!, made.action!)).toMatchObject({ id: made.action, status: 'executed', replayed: false })],
  ['managedAgents.runs', async () => expect((await client.managedAgents.runs(made.managed!)).map((r) => r.id)).toContain(made.run)],
  ['managedAgents.schedule', async () => expect(await client.managedAgents.schedule(made.managed!, { cron: '0 9 * * 1', input: 'weekly' })).toMatchObject({ cron: '0 9 * * 1', catch_up_s: 3600 })],
  ['managedAgents.getSchedule', async () => expect(await client.managedAgents.getSchedule(made.managed!)).toMatchObject({ cron: '0 9 * * 1', input: 'weekly', last_tick: null })],
  ['managedAgents.unschedule', async () => void (await client.managedAgents.unschedule(made.managed!))],
  [
    'managedRuns.cancel',
    async () => {
      // the executed run has ended (or goes on to its answer): an ended run answers 409; a waiting one is cancelled
      const r = await client.managedRuns.cancel(made.run!).then(
        (x) => ({ ok: true, x }),
        (e: { status?: number }) => ({ ok: false, x: e }),
      );
      if (r.ok) expect((r.x as { status?: string }).status).toBe('cancelled');
      else expect((r.x as { status?: number }).status).toBe(409);
    },
  ],
  [
    'managedAgents.playground',
    async () => {
      rig.vendor.script({ content: 'Polished.' });
      expect((await client.managedAgents.playground({ config: { kind: 'chain', steps: [{ name: 'only', prompt: 'Summarise {{input}}' }] }, input: 'a long text' })).id).toBeTypeOf('string');
    },
  ],
  ['connections.remove', () => client.connections.remove('tickets')],
  // last: managed Production (the report finalized above), paid from the wallet credited at the start
  ['workflow.startSubscription', async () => expect((await client.workflows.subscribe(wf())).status).toBe('active')],
  ['workflow.subscription', async () => expect((await client.workflows.subscription(wf())).status).toBe('active')],
  ['workflow.cancelSubscription', async () => expect(await client.workflows.cancelSubscription(wf())).toHaveProperty('status')],
];

/** The capability's route as a pattern over the requests the SDK sent. */
function routeOf(name: string): RegExp {
  const cap = capabilityList(capabilities).find((c) => c.name === name)!.cap;
  return new RegExp(`^${cap.rest!.method.toUpperCase()} ${cap.rest!.path.replace(/:\w+/g, '[^/]+')}$`);
}

describe("the SDK's REST client", () => {
  it('has a named method for every tenant capability with a REST door, and no entry for one that does not exist', () => {
    const rest = capabilityList(capabilities)
      .filter(({ cap }) => cap.rest && cap.auth !== 'admin')
      .map(({ name }) => name)
      .sort();
    expect(table.map(([name]) => name).sort()).toEqual(rest);
  });

  it('calls each capability on its own route against a gateway', { timeout: 120_000 }, async () => {
    for (const [name, call, refusal] of table) {
      sent.length = 0;
      const outcome = await call().then(
        () => null,
        (e: unknown) => e,
      );
      if (refusal) {
        expect(isOptimizerError(outcome) ? outcome.code : outcome, name).toBe(refusal);
      } else {
        expect(outcome, `${name}: ${String(outcome)}`).toBeNull();
      }
      expect(sent.some((r) => routeOf(name).test(r)), `${name} sent ${sent.join(', ')}`).toBe(true);
    }
  });

  it('reaches any capability by name with client.call, typed by its input and answer', async () => {
    const steps = await client.call('workflow.steps', { id: wf() });
    expect(steps.map((s) => s.label)).toContain('triage');
    const billing = await client.call('billing.view');
    expect(billing.balances.wallet_usd).toBeTypeOf('number');
  });

  it('refuses a misspelled tier before sending on every door the SDK speaks, as the server would store it with only a warning', async () => {
    const misspelled = { ladders: { premuim: ['gpt-4.1'] } } as never;
    const trpc = createTrpcClient({ baseURL: rig.gw.url, apiKey: rig.tenant.api_key, fetch: recording });
    sent.length = 0;
    for (const attempt of [() => client.settings.routing.put(misspelled), () => client.call('settings.setRouting', misspelled), () => trpc.settings.setRouting.mutate(misspelled)]) {
      await expect(attempt()).rejects.toMatchObject({ status: 0, code: 'client_validation', param: 'ladders.premuim' });
    }
    expect(sent).toEqual([]);
    // the known tiers pass, on tRPC too
    expect((await trpc.settings.setRouting.mutate({ ladders: { premium: ['gpt-4.1'] } })).ladders).toMatchObject({ premium: ['gpt-4.1'] });
  });

  it('routes from the server’s capabilities: rest/routes.gen.ts is current', () => {
    expect(readFileSync(restRoutesPath, 'utf8'), 'routes.gen.ts is stale: run node scripts/sdk-rest-routes.ts').toBe(renderRestRoutes());
  });
});
