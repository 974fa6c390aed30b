// Managed agents (spec 4.5, 7.3, 7.7): a chain's steps go through the gateway's own
// completion pipeline (routed, metered and listed in /v1/calls like a tenant's calls) and
// its events arrive over SSE in order, resumable with Last-Event-ID; an action run proposes
// a call to a connection that waits for approval and runs exactly once however often it is
// executed, never following a redirect; the month's run cap answers 402 with cap and used,
// and a playground config that fails validation spends no run. The connection's loopback
// server is reachable only through the operator allow-list (OUTBOUND_ALLOW_LIST); names
// resolve through a stub resolver.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeOnMockOpenAI, startRig, type Rig } from './support/vendor.ts';
import { signup } from './support/gateway.ts';
import { startLoopback, type Loopback } from './support/loopback.ts';
import { readEvents, restFor, stubResolver, waitForRun, type Rest } from './support/managed.ts';

const CAP = 6;
let rig: Rig;
let rest: Rest;
let target: Loopback;
let rebindLookups = 0;
const resolve = stubResolver({
  'metadata.test': ['169.254.169.254'],
  'rebind.test': () => (rebindLookups++ === 0 ? ['93.184.215.14'] : ['10.0.0.7']),
});

beforeAll(async () => {
  target = await startLoopback((req, res) => {
    if (req.path.endsWith('/go')) {
      res.writeHead(302, { location: 'http://metadata.test/latest/meta-data/iam' });
      return res.end();
    }
    if (req.path.endsWith('/go-literal')) {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/iam' });
      return res.end();
    }
    res.writeHead(201, { 'content-type': 'application/json' });
    res.end('{"ticket":"T-1"}');
  });
  rig = await startRig({ env: { OUTBOUND_ALLOW_LIST: '127.0.0.1/32', MANAGED_RUN_CAP: String(CAP) }, hooks: { resolve } });
  rest = restFor(rig.gw.url, rig.tenant.api_key);
  expect((await routeOnMockOpenAI(rig)).status).toBe(200);
});
afterAll(async () => {
  await rig.close();
  await target.close();
});

/** The model's turn: one call of the connection's tool (every action agent's connections are its tools). */
const proposes = (connection: string, args: Record<string, unknown>) => rig.vendor.script({ tool_calls: [{ name: connection, arguments: JSON.stringify(args) }] });
/** The model's next turn: an answer, which ends the run. */
const answers = (content: string) => rig.vendor.script({ content });

async function actionRun(r: Rest, connection: string, agentName: string): Promise<any> {
  const agent = await r('/v1/managed-agents', { method: 'POST', body: { name: agentName, config: { kind: 'action', model: 'gpt-4.1-mini', connection, instructions: 'File a ticket for the problem described.' } } });
  expect(agent.status).toBe(201);
  const started = await r(`/v1/managed-agents/${agent.body.id}/runs`, { method: 'POST', body: { input: 'The printer is on fire.' } });
  expect(started.status).toBe(202);
  return waitForRun(r, started.body.id, ['waiting_approval', 'completed', 'failed']);
}

describe('a chain agent', () => {
  it('runs its steps through the completion pipeline, listed in /v1/calls routed and metered like tenant calls', async () => {
    const agent = await rest('/v1/managed-agents', {
      method: 'POST',
      body: { name: 'replier', config: { kind: 'chain', steps: [{ name: 'draft', prompt: 'Draft a reply to: {{input}}' }, { name: 'polish', prompt: 'Polish this draft: {{previous}}' }] } },
    });
    expect(agent.status).toBe(201);
    expect(agent.body).toMatchObject({ name: 'replier', kind: 'chain', config: { model: 'auto' } });
    expect((await rest('/v1/managed-agents')).body.data.map((a: any) => a.id)).toContain(agent.body.id);
    const before = rig.vendor.requests.length;
    const started = await rest(`/v1/managed-agents/${agent.body.id}/runs`, { method: 'POST', body: { input: 'where is my parcel' } });
    expect(started.status).toBe(202);
    expect(started.body.events_url).toBe(`/v1/managed-runs/${started.body.id}/events`);

    // events, read from the start; the reader goes away after three and comes back with Last-Event-ID
    const first = await readEvents(rig.gw.url, rig.tenant.api_key, started.body.id, { stop: (e) => e.length === 3 });
    const rest2 = await readEvents(rig.gw.url, rig.tenant.api_key, started.body.id, { lastEventId: first.at(-1)!.id });
    const events = [...first, ...rest2];
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    expect(events.map((e) => e.event)).toEqual(['run.started', 'step.started', 'step.completed', 'step.started', 'step.completed', 'run.completed']);
    expect(events.map((e) => e.data.type)).toEqual(events.map((e) => e.event));

    const run = await waitForRun(rest, started.body.id);
    expect(run).toMatchObject({ status: 'completed', agent: agent.body.id, kind: 'chain' });
    expect(run.steps.map((s: any) => s.name)).toEqual(['draft', 'polish']);
    const [draft, polish] = run.steps.map((s: any) => s.output as string);
    expect(run.output).toBe(polish);
    // the second step saw the first's answer
    const sent = rig.vendor.requests.slice(before).map((r) => JSON.stringify(r.body));
    expect(sent).toHaveLength(2);
    expect(sent[0]).toContain('Draft a reply to: where is my parcel');
    expect(sent[1]).toContain(`Polish this draft: ${draft}`);
    expect(sent.join()).not.toContain('"optimizer"'); // the annotation stays in the gateway, as for a tenant's call

    await rig.gw.services.meter.flush();
    const calls = (await rest('/v1/calls?limit=10')).body.data as any[];
    const steps = calls.filter((c) => events.some((e) => e.event === 'step.completed' && e.data.data.call_id === c.id));
    expect(steps).toHaveLength(2);
    for (const c of steps) {
      expect(c).toMatchObject({ agent: rig.tenant.workflow_id, model: 'auto', status: 200, provider: 'openai' });
      expect(c.routed_model).toMatch(/^gpt-/);
      expect(c.cost.baseline).toBeGreaterThan(0);
      expect(c.cost.actual).toBeGreaterThan(0);
      expect(c.reasons.length).toBeGreaterThan(0);
    }
  });

  it('keeps each tenant to its own agents and runs', async () => {
    const other = restFor(rig.gw.url, (await signup(rig.gw, 'Other')).api_key);
    const mine = (await rest('/v1/managed-agents')).body.data[0];
    expect((await other('/v1/managed-agents')).body.data).toEqual([]);
    expect((await other(`/v1/managed-agents/${mine.id}/runs`, { method: 'POST', body: {} })).status).toBe(404);
  });

  it("runs under the tenant, not the key that created the agent: revoking that key stops no run (the revoked key itself starts none)", async () => {
    const wf = rig.tenant.workflow_id;
    const made = (await rest(`/v1/agents/${wf}/keys`, { method: 'POST' })).body as { id: string; api_key: string };
    const creator = restFor(rig.gw.url, made.api_key);
    const agent = await creator('/v1/managed-agents', { method: 'POST', body: { name: 'orphaned', config: { kind: 'chain', model: 'gpt-4.1-mini', steps: [{ name: 'only', prompt: 'Summarise {{input}}' }] } } });
    expect(agent.status).toBe(201);
    expect((await rest(`/v1/agents/${wf}/keys/${made.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await creator(`/v1/managed-agents/${agent.body.id}/runs`, { method: 'POST', body: { input: 'x' } })).status).toBe(401);

    const started = await rest(`/v1/managed-agents/${agent.body.id}/runs`, { method: 'POST', body: { input: 'the quarterly numbers' } });
    expect(started.status).toBe(202);
    const run = await waitForRun(rest, started.body.id);
    expect(run).toMatchObject({ status: 'completed', error: null });
    expect(run.steps).toEqual([{ name: 'only', output: expect.any(String) }]);
    // recorded under the key that started it, and metered to the tenant's workflow
    const [row] = (await rig.gw.services.db.em().getConnection().execute('select key_id from managed_runs where id = ?', [started.body.id])) as { key_id: string }[];
    expect(row!.key_id).not.toBe(made.id);
    await rig.gw.services.meter.flush();
    const events = await readEvents(rig.gw.url, rig.tenant.api_key, started.body.id);
    const callId = events.find((e) => e.event === 'step.completed')!.data.data.call_id as string;
    expect((await rest('/v1/calls?limit=20')).body.data.find((c: any) => c.id === callId)).toMatchObject({ agent: wf, status: 200 });
  });

  it('refuses an unknown kind or a malformed config with 422', async () => {
    const bad = await rest('/v1/managed-agents', { method: 'POST', body: { name: 'x', config: { kind: 'shell', steps: [] } } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe('validation_failed');
    expect((await rest('/v1/managed-agents', { method: 'POST', body: { name: 'x', config: { kind: 'chain', steps: [] } } })).status).toBe(422);
    expect((await rest('/v1/managed-agents', { method: 'POST', body: { name: 'x', config: { kind: 'action', instructions: 'x' } } })).status).toBe(422);
  });
});

describe('an action agent', () => {
  it('proposes a call that waits for approval, and executing it twice calls the connection once', async () => {
    expect((await rest('/v1/connections/tickets', { method: 'PUT', body: { base_url: `${target.url}/api`, secret: 'tk-secret-0123456789' } })).status).toBe(201);
    proposes('tickets', { method: 'POST', path: '/tickets', body: { title: 'Printer on fire' } });
    const seenBefore = target.seen.length;
    const run = await actionRun(rest, 'tickets', 'ticketer');
    answers('Filed as T-1.');
    expect(run.status).toBe('waiting_approval');
    expect(run.actions).toHaveLength(1);
    const action = run.actions[0];
    expect(action).toMatchObject({ connection: 'tickets', method: 'POST', path: '/tickets', body: { title: 'Printer on fire' }, status: 'proposed', response: null });
    expect(target.seen.length).toBe(seenBefore); // nothing runs before approval

    const execute = () => rest(`/v1/managed-runs/${run.id}/actions/${action.id}/execute`, { method: 'POST' });
    const [a, b] = await Promise.all([execute(), execute()]);
    const c = await execute();
    expect(target.seen.length).toBe(seenBefore + 1);
    const call = target.seen.at(-1)!;
    expect(call).toMatchObject({ method: 'POST', path: '/api/tickets', body: '{"title":"Printer on fire"}' });
    expect(call.headers.authorization).toBe('Bearer tk-secret-0123456789');
    const both = [a, b].sort((x, y) => x.status - y.status);
    expect(both[0]!.status).toBe(200);
    expect([200, 409]).toContain(both[1]!.status); // the second either waited out the first (a replay) or met it in flight
    expect(c.status).toBe(200);
    expect(c.body).toMatchObject({ id: action.id, status: 'executed', response: { status: 201, body: '{"ticket":"T-1"}' }, replayed: true });

    const done = await waitForRun(rest, run.id);
    expect(done).toMatchObject({ status: 'completed', output: 'Filed as T-1.' });
    const events = await readEvents(rig.gw.url, rig.tenant.api_key, run.id);
    expect(events.map((e) => e.event)).toEqual([
      'run.started', 'step.started', 'step.completed', 'action.proposed', 'run.waiting_approval',
      'action.executing', 'action.executed', 'actions.returned', 'step.started', 'step.completed', 'run.completed',
    ]);
  });

  it('lists the actions of one turn in the order the model proposed them, though they share a time', async () => {
    proposes('ordered', { method: 'GET', path: '/first' });
    expect((await rest('/v1/connections/ordered', { method: 'PUT', body: { base_url: target.url } })).status).toBe(201);
    const run = await actionRun(rest, 'ordered', 'ordered');
    // the rest of the turn's proposals, added as the runner adds them, then stamped with the first one's time
    const store = rig.gw.services.managedAgents.store;
    const paths = ['/first', ...Array.from({ length: 7 }, (_, i) => `/then/${7 - i}`)];
    await store.tx(async (em) => {
      for (const path of paths.slice(1)) await store.addAction({ id: run.id, account_id: rig.tenant.account_id }, 'ordered', { method: 'GET', path }, em);
    });
    await store.sql(`update managed_actions set created_at = (select min(created_at) from managed_actions where run_id = ?) where run_id = ?`, [run.id, run.id]);
    const listed = (await rest(`/v1/managed-runs/${run.id}`)).body.actions.map((a: any) => a.path);
    expect(listed).toEqual(paths);
  });

  it('never follows a redirect: a 302 to the metadata address is the answer, and the redirect target is never looked up', async () => {
    expect((await rest('/v1/connections/redir', { method: 'PUT', body: { base_url: target.url } })).status).toBe(201);
    rig.vendor.script({
      tool_calls: [
        { name: 'redir', arguments: JSON.stringify({ method: 'GET', path: '/go' }) },
        { name: 'redir', arguments: JSON.stringify({ method: 'GET', path: '/go-literal' }) },
      ],
    });
    const run = await actionRun(rest, 'redir', 'redirected');
    answers('Both redirect.');
    expect(run.actions.map((a: any) => a.path)).toEqual(['/go', '/go-literal']);
    const seenBefore = target.seen.length;
    for (const action of run.actions) {
      const r = await rest(`/v1/managed-runs/${run.id}/actions/${action.id}/execute`, { method: 'POST' });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ status: 'executed', response: { status: 302 } });
    }
    // one request each, to the connection only: neither Location was followed, the named one not even looked up
    expect(target.seen.slice(seenBefore).map((q) => q.path)).toEqual(['/go', '/go-literal']);
    expect(resolve.asked).not.toContain('metadata.test');
    expect((await waitForRun(rest, run.id)).status).toBe('completed');
  });

  it('refuses at execution a connection whose name rebinds to a private address, with 422 address_refused, once', async () => {
    expect((await rest('/v1/connections/rebinder', { method: 'PUT', body: { base_url: 'http://rebind.test/' } })).status).toBe(201);
    proposes('rebinder', { method: 'GET', path: '/x' });
    const other = await signup(rig.gw, 'Rebinder');
    const theirs = restFor(rig.gw.url, other.api_key);
    expect((await theirs('/v1/connections/rebinder', { method: 'PUT', body: { base_url: 'http://rebind.test/' } })).status).toBe(422); // 10.0.0.7 now, and not on the allow-list
    const run = await actionRun(rest, 'rebinder', 'rebinding');
    answers('The connection was refused.');
    const r = await rest(`/v1/managed-runs/${run.id}/actions/${run.actions[0].id}/execute`, { method: 'POST' });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('address_refused');
    const again = await rest(`/v1/managed-runs/${run.id}/actions/${run.actions[0].id}/execute`, { method: 'POST' });
    expect(again.body).toMatchObject({ status: 'failed', error: 'address_refused', replayed: true });
    expect((await waitForRun(rest, run.id)).status).toBe('completed');
  });

  it('refuses names and private ranges outside the operator allow-list, which no tenant can widen', async () => {
    for (const base_url of [`http://localhost:${target.port}`, `http://127.0.0.2:${target.port}`, 'http://10.1.2.3/', 'http://[::1]/']) {
      const r = await rest('/v1/connections/outside', { method: 'PUT', body: { base_url } });
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe('address_refused');
    }
  });
});

describe('the run cap', () => {
  it('answers the (cap+1)-th run of the month with 402 and {cap, used}; a playground config that fails validation spends no run', async () => {
    const t = await signup(rig.gw, 'Capped');
    const r = restFor(rig.gw.url, t.api_key);
    const chain = { kind: 'chain', model: 'gpt-4.1-mini', steps: [{ name: 'one', prompt: 'Say hi to {{input}}' }] };
    for (const config of [{ kind: 'shell' }, { ...chain, steps: [] }, { ...chain, steps: [{ name: 'one', prompt: '' }] }, { ...chain, extra: true }]) {
      const bad = await r('/v1/managed-agents/playground', { method: 'POST', body: { config, input: 'x' } });
      expect(bad.status).toBe(422);
    }
    const [used0] = (await rig.gw.services.db.em().getConnection().execute('select count(*)::int as n from managed_runs where account_id = ?', [t.account_id])) as { n: number }[];
    expect(used0!.n).toBe(0);
    // the playground with a valid config counts; so do runs of a stored agent
    const play = await r('/v1/managed-agents/playground', { method: 'POST', body: { config: chain, input: 'Ada' } });
    expect(play.status).toBe(202);
    expect(play.body.agent).toBeNull();
    expect((await waitForRun(r, play.body.id)).status).toBe('completed');
    const agent = (await r('/v1/managed-agents', { method: 'POST', body: { name: 'greeter', config: chain } })).body;
    for (let i = 1; i < CAP; i++) expect((await r(`/v1/managed-agents/${agent.id}/runs`, { method: 'POST', body: { input: `run ${i}` } })).status).toBe(202);
    const over = await r(`/v1/managed-agents/${agent.id}/runs`, { method: 'POST', body: { input: 'one too many' } });
    expect(over.status).toBe(402);
    expect(over.body.error).toMatchObject({ type: 'run_cap_reached', code: 'run_cap_reached', cap: CAP, used: CAP });
    const overPlay = await r('/v1/managed-agents/playground', { method: 'POST', body: { config: chain } });
    expect(overPlay.status).toBe(402);
    expect(overPlay.body.error).toMatchObject({ cap: CAP, used: CAP });
    const [runs] = (await rig.gw.services.db.em().getConnection().execute('select count(*)::int as n from managed_runs where account_id = ?', [t.account_id])) as { n: number }[];
    expect(runs!.n).toBe(CAP);
  });
});
