// Action agents that act (spec 4.5): every action run is a loop of model turns (up to max_steps,
// default 8, the same for an agent stored before the cap existed) through the
// gateway's own completion pipeline (routed and metered like a tenant's call), the tenant's
// connections offered as tools. A proposed call waits for approval unless the agent's
// auto_approve names its tool; its result (status and body) goes back to the model as the tool
// message; the run ends on the model's answer, at its step cap or on a cancel, with a clear event; the
// events resume after a dropped stream with Last-Event-ID, without loss or duplicates. The
// connection's loopback server is reachable only through the operator allow-list; a name that
// rebinds to a private address is refused on the address actually connected to.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeOnMockOpenAI, startRig, type Rig } from './support/vendor.ts';
import { startLoopback, type Loopback } from './support/loopback.ts';
import { readEvents, restFor, stubResolver, waitForRun, type Rest } from './support/managed.ts';

let rig: Rig;
let rest: Rest;
let target: Loopback;
let rebindLookups = 0;
const resolve = stubResolver({ 'rebind.test': () => (rebindLookups++ === 0 ? ['93.184.215.14'] : ['10.0.0.7']) });

beforeAll(async () => {
  target = await startLoopback((req, res) => {
    res.writeHead(201, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ticket: 'T-7', path: req.path }));
  });
  rig = await startRig({ env: { OUTBOUND_ALLOW_LIST: '127.0.0.1/32' }, hooks: { resolve } });
  rest = restFor(rig.gw.url, rig.tenant.api_key);
  expect((await routeOnMockOpenAI(rig)).status).toBe(200);
  // the tenant's only connections, so the tools offered are these (by name: desk first)
  expect((await rest('/v1/connections/desk', { method: 'PUT', body: { base_url: `${target.url}/api`, secret: 'desk-secret-0123456789' } })).status).toBe(201);
});
afterAll(async () => {
  await rig?.close();
  await target?.close();
});

const callsDesk = (args: Record<string, unknown>, name = 'desk') => rig.vendor.script({ tool_calls: [{ id: 'call_1', name, arguments: JSON.stringify(args) }] });

async function start(name: string, config: Record<string, unknown>, input = 'The printer is on fire.'): Promise<string> {
  const agent = await rest('/v1/managed-agents', { method: 'POST', body: { name, config: { kind: 'action', model: 'gpt-4.1-mini', connection: 'desk', instructions: 'File a ticket for the problem described.', ...config } } });
  expect(agent.status).toBe(201);
  expect(agent.body.config).toMatchObject(config);
  const started = await rest(`/v1/managed-agents/${agent.body.id}/runs`, { method: 'POST', body: { input } });
  expect(started.status).toBe(202);
  return started.body.id as string;
}

/** The vendor requests of this run (its turns), by the run's input. */
const turnsSince = (from: number) => rig.vendor.requests.slice(from).map((r) => r.body as { messages: any[]; tools?: any[] });

describe('an action agent with a step cap', () => {
  it('proposes a call, waits for approval, gets the result back and answers with it; its events resume after a dropped stream', async () => {
    callsDesk({ method: 'POST', path: '/tickets', body: { title: 'Printer on fire' } });
    const vendorBefore = rig.vendor.requests.length;
    const seenBefore = target.seen.length;
    const runId = await start('approver', { max_steps: 4 });

    // the reader drops its stream once the run waits
    const first = await readEvents(rig.gw.url, rig.tenant.api_key, runId, { stop: (e) => e.at(-1)!.event === 'run.waiting_approval' });
    expect(first.map((e) => e.event)).toEqual(['run.started', 'step.started', 'step.completed', 'action.proposed', 'run.waiting_approval']);
    const proposed = first[3]!.data.data;
    expect(proposed).toMatchObject({ connection: 'desk', method: 'POST', path: '/tickets', body: { title: 'Printer on fire' }, tool_call_id: 'call_1', auto_approved: false });
    const waiting = await waitForRun(rest, runId, ['waiting_approval']);
    expect(waiting.actions).toMatchObject([{ id: proposed.action, status: 'proposed', response: null }]);
    expect(target.seen.length).toBe(seenBefore); // nothing runs before approval
    const turn1 = turnsSince(vendorBefore);
    expect(turn1).toHaveLength(1);
    expect(turn1[0]!.tools!.map((t) => t.function.name)).toEqual(['desk']);

    rig.vendor.script({ content: 'Filed as ticket T-7.' });
    const approved = await rest(`/v1/managed-runs/${runId}/actions/${proposed.action}/execute`, { method: 'POST' });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'executed', response: { status: 201 }, replayed: false });
    expect(target.seen.slice(seenBefore)).toMatchObject([{ method: 'POST', path: '/api/tickets', body: '{"title":"Printer on fire"}' }]);
    expect(target.seen.at(-1)!.headers.authorization).toBe('Bearer desk-secret-0123456789');

    const done = await waitForRun(rest, runId);
    expect(done).toMatchObject({ status: 'completed', output: 'Filed as ticket T-7.', error: null });
    // the second turn carried the call and its result as the tool message
    const turns = turnsSince(vendorBefore);
    expect(turns).toHaveLength(2);
    const msgs = turns[1]!.messages;
    expect(msgs.at(-2)).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'call_1', function: { name: 'desk' } }] });
    expect(msgs.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_1', content: 'HTTP 201\n{"ticket":"T-7","path":"/api/tickets"}' });

    // resumed with Last-Event-ID: the rest, in order, none lost or repeated
    const rest2 = await readEvents(rig.gw.url, rig.tenant.api_key, runId, { lastEventId: first.at(-1)!.id });
    const events = [...first, ...rest2];
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    expect(events.map((e) => e.event)).toEqual([
      'run.started', 'step.started', 'step.completed', 'action.proposed', 'run.waiting_approval',
      'action.executing', 'action.executed', 'actions.returned', 'step.started', 'step.completed', 'run.completed',
    ]);
    expect(events.at(-1)!.data.data).toEqual({ output: 'Filed as ticket T-7.' });

    // each turn is a gateway call, routed and metered under the tenant's workflow
    await rig.gw.services.meter.flush();
    const calls = (await rest('/v1/calls?limit=20')).body.data as any[];
    const turnCalls = events.filter((e) => e.event === 'step.completed').map((e) => e.data.data.call_id as string);
    expect(turnCalls).toHaveLength(2);
    for (const id of turnCalls) {
      const c = calls.find((x) => x.id === id);
      expect(c).toMatchObject({ agent: rig.tenant.workflow_id, status: 200, provider: 'openai' });
      expect(c.cost.actual).toBeGreaterThan(0);
    }
  });

  it('runs a call its policy auto-approves without waiting, and feeds the result back', async () => {
    rig.vendor.script({}); // the mock's own choice: the first tool, then a text answer after its result
    const vendorBefore = rig.vendor.requests.length;
    const seenBefore = target.seen.length;
    const runId = await start('auto', { max_steps: 3, auto_approve: ['desk'] });
    const done = await waitForRun(rest, runId);
    expect(done.status).toBe('completed');
    expect(done.output).toMatch(/^mock answer to: /);
    expect(done.actions).toMatchObject([{ connection: 'desk', method: 'GET', status: 'executed', response: { status: 201 } }]);
    expect(target.seen.slice(seenBefore).map((q) => q.method)).toEqual(['GET']);
    const events = await readEvents(rig.gw.url, rig.tenant.api_key, runId);
    expect(events.map((e) => e.event)).not.toContain('run.waiting_approval');
    expect(events.find((e) => e.event === 'action.proposed')!.data.data).toMatchObject({ auto_approved: true });
    const turns = turnsSince(vendorBefore);
    expect(turns).toHaveLength(2);
    expect(turns[1]!.messages.at(-1)).toMatchObject({ role: 'tool', content: expect.stringMatching(/^HTTP 201\n\{"ticket":"T-7"/) });
  });

  it('ends a run that reaches its step cap with a clear event', async () => {
    callsDesk({ method: 'GET', path: '/status' }); // the model never answers: it calls the tool every turn
    const seenBefore = target.seen.length;
    const runId = await start('capped', { max_steps: 2, auto_approve: ['desk'] });
    const done = await waitForRun(rest, runId);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/step cap of 2/);
    expect(target.seen.length).toBe(seenBefore + 2);
    const events = await readEvents(rig.gw.url, rig.tenant.api_key, runId);
    expect(events.filter((e) => e.event === 'step.completed')).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ event: 'run.failed', data: { data: { error: 'step_cap_reached', max_steps: 2 } } });
  });

  it('refuses an approved call whose connection name now resolves to a private address, and tells the model', async () => {
    expect((await rest('/v1/connections/rebind', { method: 'PUT', body: { base_url: 'http://rebind.test/' } })).status).toBe(201);
    callsDesk({ method: 'GET', path: '/x' }, 'rebind');
    const vendorBefore = rig.vendor.requests.length;
    const runId = await start('rebinding', { max_steps: 3 });
    const waiting = await waitForRun(rest, runId, ['waiting_approval', 'completed', 'failed']);
    expect(waiting.status).toBe('waiting_approval');
    rig.vendor.script({ content: 'The desk could not be reached.' });
    const r = await rest(`/v1/managed-runs/${runId}/actions/${waiting.actions[0].id}/execute`, { method: 'POST' });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('address_refused');
    const done = await waitForRun(rest, runId);
    expect(done).toMatchObject({ status: 'completed', output: 'The desk could not be reached.' });
    expect(turnsSince(vendorBefore)[1]!.messages.at(-1)).toMatchObject({ role: 'tool', content: expect.stringContaining('address_refused') });
    expect((await rest('/v1/connections/rebind', { method: 'DELETE' })).status).toBe(204);
  });

  it('cancels a waiting run: its proposed call never runs, the stream ends on run.cancelled, and an ended run is not cancelled again', async () => {
    callsDesk({ method: 'POST', path: '/tickets', body: { title: 'Never sent' } });
    const seenBefore = target.seen.length;
    const runId = await start('cancelled', { max_steps: 3 });
    const waiting = await waitForRun(rest, runId, ['waiting_approval']);
    const cancel = () => rest(`/v1/managed-runs/${runId}/cancel`, { method: 'POST' });
    const c = await cancel();
    expect(c.status).toBe(200);
    expect(c.body).toMatchObject({ id: runId, status: 'cancelled', actions: [{ id: waiting.actions[0].id, status: 'failed', error: 'cancelled' }] });
    expect((await cancel()).body.status).toBe('cancelled'); // a repeat answers the run
    const late = await rest(`/v1/managed-runs/${runId}/actions/${waiting.actions[0].id}/execute`, { method: 'POST' });
    expect(late.body).toMatchObject({ status: 'failed', error: 'cancelled', replayed: true });
    expect(target.seen.length).toBe(seenBefore);
    const events = await readEvents(rig.gw.url, rig.tenant.api_key, runId); // ends by itself on the terminal event
    expect(events.at(-1)).toMatchObject({ event: 'run.cancelled', data: { data: { actions_dropped: [waiting.actions[0].id] } } });
    expect((await rest(`/v1/managed-runs/${runId}`)).body.status).toBe('cancelled');

    rig.vendor.script({ content: 'Nothing to do.' });
    const ended = await start('answered', { max_steps: 2 });
    expect((await waitForRun(rest, ended)).status).toBe('completed');
    const again = await rest(`/v1/managed-runs/${ended}/cancel`, { method: 'POST' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
  });

  it('refuses a step cap out of range and a bad policy with 422 naming the field', async () => {
    for (const [extra, param] of [
      [{ max_steps: 0 }, 'config.max_steps'],
      [{ max_steps: 51 }, 'config.max_steps'],
      [{ max_steps: 2.5 }, 'config.max_steps'],
      [{ auto_approve: ['Not A Name'] }, 'config.auto_approve.0'],
    ] as const) {
      const r = await rest('/v1/managed-agents', { method: 'POST', body: { name: 'bad', config: { kind: 'action', connection: 'desk', instructions: 'x', ...extra } } });
      expect(r.status).toBe(422);
      expect(r.body.error).toMatchObject({ code: 'validation_failed', param });
    }
  });

  it('loops every action agent: one that names no cap gets 8 turns, and an agent stored before the cap existed reads it too', async () => {
    callsDesk({ method: 'GET', path: '/status' }); // never answers: the default cap ends it
    const seenBefore = target.seen.length;
    const runId = await start('uncapped', { auto_approve: ['desk'] });
    const agents = (await rest('/v1/managed-agents')).body.data as any[];
    expect(agents.find((a) => a.name === 'uncapped').config).toMatchObject({ max_steps: 8, auto_approve: ['desk'] });
    const done = await waitForRun(rest, runId);
    expect(done.error).toMatch(/step cap of 8/);
    expect(target.seen.length).toBe(seenBefore + 8);
    const events = await readEvents(rig.gw.url, rig.tenant.api_key, runId);
    expect(events.at(-1)).toMatchObject({ event: 'run.failed', data: { data: { error: 'step_cap_reached', max_steps: 8 } } });

    // a row written before the cap existed: its config has no max_steps; it reads, and runs, with the default
    const id = 'magt_stored_before_cap';
    const legacy = { kind: 'action', model: 'gpt-4.1-mini', connection: 'desk', instructions: 'File a ticket.', methods: ['GET', 'POST'] };
    await rig.gw.services.managedAgents.store.sql(`insert into managed_agents (id, account_id, workflow_id, key_id, name, kind, config) select ?, account_id, workflow_id, key_id, 'legacy', 'action', ? from managed_agents where account_id = ? limit 1`, [
      id, JSON.stringify(legacy), rig.tenant.account_id,
    ]);
    expect((await rest('/v1/managed-agents')).body.data.find((a: any) => a.id === id).config).toEqual({ ...legacy, max_steps: 8 });
    rig.vendor.script({}); // the mock's own choice: the tool, then an answer from its result
    const started = await rest(`/v1/managed-agents/${id}/runs`, { method: 'POST', body: { input: 'Is the desk up?' } });
    expect(started.status).toBe(202);
    const waiting = await waitForRun(rest, started.body.id, ['waiting_approval']);
    expect(await rest(`/v1/managed-runs/${started.body.id}/actions/${waiting.actions[0].id}/execute`, { method: 'POST' })).toMatchObject({ status: 200 });
    expect(await waitForRun(rest, started.body.id)).toMatchObject({ status: 'completed', output: expect.stringMatching(/^mock answer to: /) });
  });

  it('ends a run started before the cap existed (one proposal turn, waiting) when its action ends, without asking the model again', async () => {
    const store = rig.gw.services.managedAgents.store;
    const runId = 'mrun_started_before_cap';
    const legacy = { kind: 'action', model: 'gpt-4.1-mini', connection: 'desk', instructions: 'File a ticket.', methods: ['GET', 'POST'] };
    await store.sql(
      `insert into managed_runs (id, account_id, workflow_id, key_id, kind, config, input, status, state)
        select ?, account_id, workflow_id, key_id, 'action', ?, 'old', 'waiting_approval', ? from managed_agents where account_id = ? limit 1`,
      [runId, JSON.stringify(legacy), JSON.stringify({ next: 0, outputs: {}, attempts: 0 }), rig.tenant.account_id],
    );
    const action = await store.addAction({ id: runId, account_id: rig.tenant.account_id }, 'desk', { method: 'GET', path: '/status' });
    const vendorBefore = rig.vendor.requests.length;
    expect((await rest(`/v1/managed-runs/${runId}/actions/${action}/execute`, { method: 'POST' })).status).toBe(200);
    expect(await waitForRun(rest, runId)).toMatchObject({ status: 'completed', actions: [{ status: 'executed' }] });
    expect(rig.vendor.requests.length).toBe(vendorBefore);
  });
});
