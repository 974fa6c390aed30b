// Connections and managed agents on the tRPC and GraphQL doors (design §2), reading the same
// as REST's: a connection's secret never comes back on any door; an action run started on one door is
// read, its events listed and its action approved on the others, and the connection is
// called once; tenant B gets 404 for tenant A's agents, runs, actions and connections on
// every door and changes nothing; a cookie-authenticated write without a same-site origin is
// refused with csrf_rejected on every door; a spent run cap answers with its type, cap and
// used on every door. The connection's loopback server is reachable only through the
// operator allow-list (OUTBOUND_ALLOW_LIST).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compact, gql, operation, rest, snake, trpcClient, trpcFailure, type Creds } from './support/doors.ts';
import { signup } from './support/gateway.ts';
import { startLoopback, type Loopback } from './support/loopback.ts';
import { restFor, waitForRun } from './support/managed.ts';
import { routeOnMockOpenAI, startRig, type Rig } from './support/vendor.ts';

const CAP = 2;
const SECRET = 'tk-secret-doors-0123456789';
let rig: Rig;
let target: Loopback;
let a: Creds;
let b: Creds;
const A = { agent: '', run: '', action: '' };

/** The model's turn: one call of the tickets connection's tool. */
const proposes = (args: Record<string, unknown>) => rig.vendor.script({ tool_calls: [{ name: 'tickets', arguments: JSON.stringify(args) }] });
const actionConfig = { kind: 'action' as const, model: 'gpt-4.1-mini', connection: 'tickets', instructions: 'File a ticket for the problem described.' };
const chainConfig = { kind: 'chain' as const, model: 'gpt-4.1-mini', steps: [{ name: 'one', prompt: 'Say hi to {{input}}' }] };

beforeAll(async () => {
  target = await startLoopback((_req, res) => {
    res.writeHead(201, { 'content-type': 'application/json' });
    res.end('{"ticket":"T-9"}');
  });
  rig = await startRig({ env: { OUTBOUND_ALLOW_LIST: '127.0.0.1/32', MANAGED_RUN_CAP: String(CAP) } });
  expect((await routeOnMockOpenAI(rig)).status).toBe(200);
  a = { key: rig.tenant.api_key };
  b = { key: (await signup(rig.gw, 'Other')).api_key };
}, 60_000);

afterAll(async () => {
  await rig?.close();
  await target?.close();
});

describe('connections and managed agents on tRPC and GraphQL', () => {
  it('never return a connection secret, and put, list and remove connections', async () => {
    const t = trpcClient(rig.gw.url, a);
    const put = await t.connections.put.mutate({ name: 'tickets', base_url: `${target.url}/api`, secret: SECRET });
    expect(put).toMatchObject({ name: 'tickets', base_url: `${target.url}/api`, secret_set: true });
    const spare = await gql(rig.gw.url, a, 'mutation($u: String!) { putConnection(name: "spare", baseUrl: $u, secret: "s-spare-secret") { name baseUrl secretSet } }', { u: `${target.url}/spare` });
    expect(spare.data).toEqual({ putConnection: { name: 'spare', baseUrl: `${target.url}/spare`, secretSet: true } });
    const listed = await gql(rig.gw.url, a, '{ connections { name baseUrl secretSet createdAt updatedAt } }');
    expect(listed.data.connections.map((c: { name: string }) => c.name)).toEqual(['spare', 'tickets']);
    const viaTrpc = await t.connections.list.query();
    const viaRest = await rest(rig.gw.url, a, 'GET', '/v1/connections');
    for (const answer of [put, spare, listed, viaTrpc, viaRest.body]) {
      expect(JSON.stringify(answer)).not.toContain(SECRET);
      expect(JSON.stringify(answer)).not.toContain('s-spare-secret');
    }
    // the schema has no field that could carry it
    expect((await gql(rig.gw.url, a, '{ connections { secret } }')).errors?.[0]?.message).toMatch(/secret/);
    expect((await gql(rig.gw.url, a, 'mutation { removeConnection(name: "spare") { name deleted } }')).data).toEqual({ removeConnection: { name: 'spare', deleted: true } });
    expect(await t.connections.remove.mutate({ name: 'tickets-old' }).catch((e: unknown) => e)).toMatchObject({ data: { httpStatus: 404, apiCode: 'not_found' } });
    expect((await t.connections.list.query()).map((c) => c.name)).toEqual(['tickets']);
  });

  it('start a run on tRPC, read it and its events on both, approve its action on GraphQL once however often it is executed', async () => {
    const t = trpcClient(rig.gw.url, a);
    const agent = await t.managedAgents.create.mutate({ name: 'ticketer', config: actionConfig });
    expect(agent).toMatchObject({ name: 'ticketer', kind: 'action', config: { connection: 'tickets', methods: ['GET', 'POST'] } });
    A.agent = agent.id;
    const bad = await gql(rig.gw.url, a, 'mutation($c: JSON!) { createManagedAgent(name: "bad", config: $c) { id } }', { c: { kind: 'shell' } });
    expect(bad.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', apiCode: 'validation_failed', status: 422 });

    proposes({ method: 'POST', path: '/tickets', body: { title: 'Printer on fire' } });
    const seen = target.seen.length;
    const started = await t.managedAgents.startRun.mutate({ id: agent.id, input: 'The printer is on fire.' });
    A.run = started.id;
    expect(started).toMatchObject({ agent: agent.id, kind: 'action', events_url: `/v1/managed-runs/${started.id}/events` });
    await expect.poll(async () => (await t.managedRuns.get.query({ id: started.id })).status, { timeout: 15_000, interval: 50 }).toBe('waiting_approval');

    const read = await gql(rig.gw.url, a, `query($id: String!) { managedRun(id: $id) { id status actions { id connection method path body status response { status } } } managedAgents { id name runs { id status } } }`, { id: started.id });
    expect(read.errors).toBeUndefined();
    const run = read.data.managedRun;
    expect(run.actions).toEqual([{ id: expect.any(String), connection: 'tickets', method: 'POST', path: '/tickets', body: { title: 'Printer on fire' }, status: 'proposed', response: null }]);
    A.action = run.actions[0].id;
    expect(read.data.managedAgents).toEqual([{ id: agent.id, name: 'ticketer', runs: [{ id: started.id, status: 'waiting_approval' }] }]);
    expect(await t.managedAgents.runs.query({ id: agent.id })).toEqual([expect.objectContaining({ id: started.id, status: 'waiting_approval', input: 'The printer is on fire.' })]);
    expect(target.seen.length).toBe(seen); // nothing runs before approval

    rig.vendor.script({ content: 'Filed as T-9.' }); // the turn after the result answers
    const execute = `mutation($id: String!, $action: String!) { executeManagedAction(id: $id, action: $action) { replayed action { id status response { status body } } } }`;
    const first = await gql(rig.gw.url, a, execute, { id: started.id, action: A.action });
    expect(first.data.executeManagedAction).toEqual({ replayed: false, action: { id: A.action, status: 'executed', response: { status: 201, body: '{"ticket":"T-9"}' } } });
    expect((await gql(rig.gw.url, a, execute, { id: started.id, action: A.action })).data.executeManagedAction.replayed).toBe(true);
    expect(await t.managedRuns.execute.mutate({ id: started.id, action: A.action })).toMatchObject({ id: A.action, status: 'executed', replayed: true });
    expect(target.seen.length).toBe(seen + 1);
    expect(target.seen.at(-1)!.headers.authorization).toBe(`Bearer ${SECRET}`);
    await waitForRun(restFor(rig.gw.url, rig.tenant.api_key), started.id);

    const types = [
      'run.started', 'step.started', 'step.completed', 'action.proposed', 'run.waiting_approval',
      'action.executing', 'action.executed', 'actions.returned', 'step.started', 'step.completed', 'run.completed',
    ];
    const events = await t.managedRuns.events.query({ id: started.id });
    expect(events.map((e) => e.type)).toEqual(types);
    expect(events.map((e) => e.seq)).toEqual(types.map((_, i) => i + 1));
    const later = await gql(rig.gw.url, a, 'query($id: String!) { managedRunEvents(id: $id, after: 5) { seq type data } }', { id: started.id });
    expect(later.data.managedRunEvents.map((e: { seq: number; type: string }) => [e.seq, e.type])).toEqual(types.slice(5).map((type, i) => [i + 6, type]));
  });
  it('read the same on REST, tRPC and GraphQL (every field GraphQL has), camelCase aside', async () => {
    const t = trpcClient(rig.gw.url, a);
    const read = async (field: string, args: Record<string, string> = {}, vars: Record<string, unknown> = {}) => {
      const r = await gql(rig.gw.url, a, operation('Query', field, args), vars);
      expect(r.errors, field).toBeUndefined();
      return snake(r.data[field]);
    };
    const same = (viaRest: unknown, viaTrpc: unknown, viaGql: unknown) => {
      expect(compact(viaTrpc), 'tRPC').toEqual(compact(viaRest));
      expect(compact(viaGql), 'GraphQL').toEqual(compact(viaRest));
    };
    same((await rest(rig.gw.url, a, 'GET', `/v1/managed-runs/${A.run}`)).body, await t.managedRuns.get.query({ id: A.run }), await read('managedRun', { id: 'String!' }, { id: A.run }));
    same((await rest(rig.gw.url, a, 'GET', '/v1/connections')).body.data, await t.connections.list.query(), await read('connections'));
    same((await rest(rig.gw.url, a, 'GET', `/v1/managed-agents/${A.agent}/runs`)).body.data, await t.managedAgents.runs.query({ id: A.agent }), await read('managedAgentRuns', { id: 'String!' }, { id: A.agent }));
    // an agent on GraphQL also has its runs, which REST lists under the agent
    const agents = ((await read('managedAgents')) as Record<string, unknown>[]).map(({ runs, ...agent }) => {
      expect(runs).toEqual([expect.objectContaining({ id: A.run, status: 'completed' })]);
      return agent;
    });
    same((await rest(rig.gw.url, a, 'GET', '/v1/managed-agents')).body.data, await t.managedAgents.list.query(), agents);
    expect(snake((await gql(rig.gw.url, a, 'query($id: String!) { managedRunEvents(id: $id) { seq type data createdAt } }', { id: A.run })).data.managedRunEvents)).toEqual(await t.managedRuns.events.query({ id: A.run }));
  });
});

describe("tenant B and tenant A's agents, runs, actions and connections", () => {
  const stateOfA = async () => ({
    connections: (await rest(rig.gw.url, a, 'GET', '/v1/connections')).body,
    agents: (await rest(rig.gw.url, a, 'GET', '/v1/managed-agents')).body,
    runs: (await rest(rig.gw.url, a, 'GET', `/v1/managed-agents/${A.agent}/runs`)).body,
    run: (await rest(rig.gw.url, a, 'GET', `/v1/managed-runs/${A.run}`)).body,
  });

  it('answer 404 not_found on every door, list nothing of A, and change nothing', async () => {
    expect(A.run).not.toBe('');
    const before = await stateOfA();
    const restCases: [string, string, unknown?][] = [
      ['GET', `/v1/connections/tickets`],
      ['DELETE', `/v1/connections/tickets`],
      ['GET', `/v1/managed-agents/${A.agent}/runs`],
      ['POST', `/v1/managed-agents/${A.agent}/runs`, { input: 'x' }],
      ['GET', `/v1/managed-runs/${A.run}`],
      ['GET', `/v1/managed-runs/${A.run}/events`],
      ['POST', `/v1/managed-runs/${A.run}/actions/${A.action}/execute`],
    ];
    for (const [method, path, body] of restCases) {
      const r = await rest(rig.gw.url, b, method, path, body);
      expect([r.status, r.body.error.code], `${method} ${path}`).toEqual([404, 'not_found']);
    }
    const t = trpcClient(rig.gw.url, b);
    const trpcCases: [string, () => Promise<unknown>][] = [
      ['connections.remove', () => t.connections.remove.mutate({ name: 'tickets' })],
      ['managedAgents.runs', () => t.managedAgents.runs.query({ id: A.agent })],
      ['managedAgents.startRun', () => t.managedAgents.startRun.mutate({ id: A.agent, input: 'x' })],
      ['managedRuns.get', () => t.managedRuns.get.query({ id: A.run })],
      ['managedRuns.events', () => t.managedRuns.events.query({ id: A.run })],
      ['managedRuns.execute', () => t.managedRuns.execute.mutate({ id: A.run, action: A.action })],
    ];
    for (const [name, call] of trpcCases) expect((await trpcFailure(call())).data, name).toMatchObject({ code: 'NOT_FOUND', httpStatus: 404, apiCode: 'not_found' });
    const ids = { agent: A.agent, run: A.run, action: A.action };
    const ops = [
      'mutation { removeConnection(name: "tickets") { name } }',
      'query($agent: String!) { managedAgentRuns(id: $agent) { id } }',
      'mutation($agent: String!) { startManagedRun(id: $agent, input: "x") { id } }',
      'query($run: String!) { managedRun(id: $run) { id } }',
      'query($run: String!) { managedRunEvents(id: $run) { seq } }',
      'mutation($run: String!, $action: String!) { executeManagedAction(id: $run, action: $action) { replayed } }',
    ];
    for (const op of ops) {
      const vars = Object.fromEntries(Object.entries(ids).filter(([k]) => op.includes(`$${k}`)));
      const r = await gql(rig.gw.url, b, op, vars);
      expect(r.data, op).toBeNull();
      expect(r.errors?.[0]?.extensions, op).toMatchObject({ code: 'NOT_FOUND', apiCode: 'not_found', status: 404 });
    }
    // what has no id reads as B's own
    expect(await t.connections.list.query()).toEqual([]);
    expect(await t.managedAgents.list.query()).toEqual([]);
    expect((await gql(rig.gw.url, b, '{ connections { name } managedAgents { id } }')).data).toEqual({ connections: [], managedAgents: [] });
    expect((await rest(rig.gw.url, b, 'GET', '/v1/managed-agents')).body.data).toEqual([]);
    expect(await stateOfA()).toEqual(before);
  });
});

describe('a cookie-authenticated write without a same-site origin', () => {
  it('is refused with 403 csrf_rejected on every door for every connection and managed-agent write, and changes nothing', async () => {
    const email = `${randomBytes(6).toString('hex')}@example.com`;
    const signed = await rest(rig.gw.url, {}, 'POST', '/v1/signup', { company: 'Cookie Co', email });
    const bearer = { key: signed.body.api_key as string };
    const login = await fetch(`${rig.gw.url}/v1/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, api_key: bearer.key }) });
    expect(login.status).toBe(200);
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const agent = (await rest(rig.gw.url, bearer, 'POST', '/v1/managed-agents', { name: 'greeter', config: chainConfig })).body.id as string;
    expect((await rest(rig.gw.url, bearer, 'PUT', '/v1/connections/crm', { base_url: `${target.url}/crm` })).status).toBe(201);
    const state = async () => ({
      connections: (await rest(rig.gw.url, bearer, 'GET', '/v1/connections')).body,
      agents: (await rest(rig.gw.url, bearer, 'GET', '/v1/managed-agents')).body,
      runs: (await rest(rig.gw.url, bearer, 'GET', `/v1/managed-agents/${agent}/runs`)).body,
    });
    const before = await state();
    const url = `${target.url}/evil`;
    type T = ReturnType<typeof trpcClient>;
    const writes: { rest: [string, string, unknown?]; trpc: (t: T) => Promise<unknown>; gql: string }[] = [
      { rest: ['PUT', '/v1/connections/evil', { base_url: url }], trpc: (t) => t.connections.put.mutate({ name: 'evil', base_url: url }), gql: `mutation { putConnection(name: "evil", baseUrl: "${url}") { name } }` },
      { rest: ['DELETE', '/v1/connections/crm'], trpc: (t) => t.connections.remove.mutate({ name: 'crm' }), gql: 'mutation { removeConnection(name: "crm") { name } }' },
      { rest: ['POST', '/v1/managed-agents', { name: 'evil', config: chainConfig }], trpc: (t) => t.managedAgents.create.mutate({ name: 'evil', config: chainConfig }), gql: 'mutation($c: JSON!) { createManagedAgent(name: "evil", config: $c) { id } }' },
      { rest: ['POST', '/v1/managed-agents/playground', { config: chainConfig }], trpc: (t) => t.managedAgents.playground.mutate({ config: chainConfig }), gql: 'mutation($c: JSON!) { runPlayground(config: $c) { id } }' },
      { rest: ['POST', `/v1/managed-agents/${agent}/runs`, {}], trpc: (t) => t.managedAgents.startRun.mutate({ id: agent }), gql: `mutation { startManagedRun(id: "${agent}") { id } }` },
      { rest: ['POST', '/v1/managed-runs/mrun_x/actions/act_x/execute'], trpc: (t) => t.managedRuns.execute.mutate({ id: 'mrun_x', action: 'act_x' }), gql: 'mutation { executeManagedAction(id: "mrun_x", action: "act_x") { replayed } }' },
    ];
    for (const headers of [{}, { origin: 'http://evil.example' }, { 'sec-fetch-site': 'cross-site' }] as Record<string, string>[]) {
      const tag = JSON.stringify(headers);
      for (const w of writes) {
        const [method, path, body] = w.rest;
        const r = await rest(rig.gw.url, { cookie, headers }, method, path, body);
        expect([r.status, r.body.error.code], `${method} ${path} ${tag}`).toEqual([403, 'csrf_rejected']);
        expect((await trpcFailure(w.trpc(trpcClient(rig.gw.url, { cookie, headers })))).data, `${w.gql} ${tag}`).toMatchObject({ code: 'FORBIDDEN', httpStatus: 403, apiCode: 'csrf_rejected' });
        const g = await gql(rig.gw.url, { cookie, headers }, w.gql, w.gql.includes('$c') ? { c: chainConfig } : {});
        expect(g.status, `${w.gql} ${tag}`).toBe(403);
        expect(g.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', apiCode: 'csrf_rejected', status: 403 });
      }
    }
    expect(await state()).toEqual(before);
    // the cookie reads them, and from our pages it writes them
    expect((await trpcClient(rig.gw.url, { cookie }).connections.list.query()).map((c) => c.name)).toEqual(['crm']);
    const sameOrigin = { cookie, headers: { origin: rig.gw.url } };
    expect((await gql(rig.gw.url, sameOrigin, 'mutation { removeConnection(name: "crm") { deleted } }')).data).toEqual({ removeConnection: { deleted: true } });
  });
});

describe('the run cap on every door', () => {
  it('answers the (cap+1)-th run with run_cap_reached, its type, cap and used, on REST, tRPC and GraphQL', async () => {
    const capped = { key: (await signup(rig.gw, 'Capped')).api_key };
    const t = trpcClient(rig.gw.url, capped);
    const agent = await t.managedAgents.create.mutate({ name: 'greeter', config: chainConfig });
    // a config that fails validation spends nothing, on any door
    expect((await trpcFailure(t.managedAgents.playground.mutate({ config: { ...chainConfig, steps: [] } }))).data).toMatchObject({ httpStatus: 422, apiCode: 'validation_failed' });
    expect((await gql(rig.gw.url, capped, 'mutation($c: JSON!) { runPlayground(config: $c) { id } }', { c: { kind: 'shell' } })).errors?.[0]?.extensions).toMatchObject({ apiCode: 'validation_failed' });
    await t.managedAgents.startRun.mutate({ id: agent.id, input: 'Ada' });
    expect((await gql(rig.gw.url, capped, 'mutation($c: JSON!) { runPlayground(config: $c, input: "Bo") { id } }', { c: chainConfig })).errors).toBeUndefined();

    const viaRest = await rest(rig.gw.url, capped, 'POST', `/v1/managed-agents/${agent.id}/runs`, { input: 'over' });
    expect(viaRest.status).toBe(402);
    expect(viaRest.body.error).toMatchObject({ type: 'run_cap_reached', code: 'run_cap_reached', cap: CAP, used: CAP });
    for (const over of [() => t.managedAgents.startRun.mutate({ id: agent.id, input: 'over' }), () => t.managedAgents.playground.mutate({ config: chainConfig })]) {
      expect((await trpcFailure(over())).data).toMatchObject({ code: 'PAYMENT_REQUIRED', httpStatus: 402, apiCode: 'run_cap_reached', type: 'run_cap_reached', cap: CAP, used: CAP });
    }
    for (const [op, vars] of [
      [`mutation { startManagedRun(id: "${agent.id}", input: "over") { id } }`, {}],
      ['mutation($c: JSON!) { runPlayground(config: $c) { id } }', { c: chainConfig }],
    ] as const) {
      const g = await gql(rig.gw.url, capped, op, vars);
      expect(g.data).toBeNull();
      expect(g.errors?.[0]?.extensions).toMatchObject({ code: 'RUN_CAP_REACHED', apiCode: 'run_cap_reached', type: 'run_cap_reached', status: 402, cap: CAP, used: CAP });
    }
    expect(await t.managedAgents.runs.query({ id: agent.id })).toHaveLength(1);
  });
});
