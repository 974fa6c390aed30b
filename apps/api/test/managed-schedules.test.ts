// Managed agents on a cron schedule (issue 35): a schedule is set on an agent (a malformed cron
// refused with 422), each tick starts one run with the schedule's input, and with two replicas
// running, both looking for due ticks every 100 ms, each tick fires once. A tick is made due by
// moving the schedule's next tick into the past, as the clock would; the next tick is then
// computed again from the expression.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startOpenAIMock, type MockVendor } from '@optimizer/mock-providers';
import { signup, testDatabase, type TestDatabase } from './support/gateway.ts';
import { restFor, waitForRun } from './support/managed.ts';
import { replicaEnv, spawnGateway, type GatewayProcess } from './support/process.ts';
import { PLATFORM_KEY } from './support/vendor.ts';

let vendor: MockVendor;
let db: TestDatabase;
let client: pg.Client;
const procs: GatewayProcess[] = [];

beforeAll(async () => {
  vendor = await startOpenAIMock({ apiKey: PLATFORM_KEY });
  db = await testDatabase({ force: true });
  client = new pg.Client({ connectionString: db.url! });
  await client.connect();
});
afterAll(async () => {
  for (const p of procs) if (p.proc.exitCode === null) p.kill('SIGKILL');
  await Promise.all(procs.map((p) => p.exited));
  await client?.end();
  await vendor.close();
  await db?.drop();
});

it('fires each tick once with two replicas running', { timeout: 300_000 }, async () => {
  const env = replicaEnv(db.url!, vendor.url, PLATFORM_KEY, { MANAGED_RUN_SWEEP_MS: '100', METER_FLUSH_MS: '50' });
  for (let i = 0; i < 2; i++) procs.push(await spawnGateway({ ...env, DATA_DIR: `/tmp/optimizer-schedules-${randomBytes(6).toString('hex')}` }));
  const [a, b] = procs as [GatewayProcess, GatewayProcess];
  const t = await signup(a, 'Scheduled');
  const ra = restFor(a.url, t.api_key);
  const rb = restFor(b.url, t.api_key);
  const agent = (await ra('/v1/managed-agents', { method: 'POST', body: { name: 'digest', config: { kind: 'chain', model: 'gpt-4.1-mini', steps: [{ name: 'only', prompt: 'Summarise {{input}}' }] } } })).body;

  for (const cron of ['* * *', '61 * * * *', '*/0 * * * *', '0 0 31 2 *']) {
    const bad = await ra(`/v1/managed-agents/${agent.id}/schedule`, { method: 'PUT', body: { cron, input: 'x' } });
    expect(bad.status, cron).toBe(422);
    expect(bad.body.error.param).toBe('cron');
  }
  expect((await rb('/v1/managed-agents/magt_none/schedule', { method: 'PUT', body: { cron: '0 9 * * 1-5' } })).status).toBe(404);

  const put = await rb(`/v1/managed-agents/${agent.id}/schedule`, { method: 'PUT', body: { cron: '0 9 * * 1-5', input: "yesterday's tickets" } });
  expect(put.status).toBe(200);
  expect(put.body).toMatchObject({ agent: agent.id, cron: '0 9 * * 1-5', input: "yesterday's tickets", last_fired_at: null, last_run: null });
  const next = new Date(put.body.next_at);
  expect([next.getUTCHours(), next.getUTCMinutes()]).toEqual([9, 0]);
  expect([1, 2, 3, 4, 5]).toContain(next.getUTCDay());
  expect(next.getTime()).toBeGreaterThan(Date.now());
  const runs = async () => (await ra(`/v1/managed-agents/${agent.id}/runs`)).body.data as any[];
  expect(await runs()).toHaveLength(0);

  for (let tick = 1; tick <= 3; tick++) {
    const r = await client.query(`update managed_schedules set next_at = now() - interval '1 second' where agent_id = $1 returning next_at`, [agent.id]);
    expect(r.rowCount).toBe(1);
    await expect.poll(async () => (await runs()).length, { timeout: 20_000, interval: 100 }).toBe(tick);
    await new Promise((res) => setTimeout(res, 600)); // both replicas looked several times more: still one run for this tick
    const listed = await runs();
    expect(listed).toHaveLength(tick);
    expect(listed[0]).toMatchObject({ input: "yesterday's tickets", agent: agent.id });
    expect((await waitForRun(rb, listed[0].id)).status).toBe('completed');
    const [row] = (await client.query('select next_at, last_run_id from managed_schedules where agent_id = $1', [agent.id])).rows;
    expect(row.last_run_id).toBe(listed[0].id);
    expect(new Date(row.next_at).getTime()).toBeGreaterThan(Date.now()); // the next tick again, from the expression
  }

  expect((await ra(`/v1/managed-agents/${agent.id}/schedule`, { method: 'DELETE' })).status).toBe(204);
  expect((await rb(`/v1/managed-agents/${agent.id}/schedule`, { method: 'DELETE' })).status).toBe(404);
});

it('catches up a tick missed while no gateway ran: once, the most recent only, and only within the catch-up window', { timeout: 120_000 }, async () => {
  const [a, b] = procs as [GatewayProcess, GatewayProcess];
  const t = await signup(b, 'Caught up');
  const ra = restFor(a.url, t.api_key);
  const rb = restFor(b.url, t.api_key);
  const chain = { kind: 'chain', model: 'gpt-4.1-mini', steps: [{ name: 'only', prompt: 'Summarise {{input}}' }] };
  // an hourly schedule whose latest tick was 20 minutes ago; the gateways were "down" for five hours before it
  const latest = new Date(Math.floor((Date.now() - 20 * 60_000) / 60_000) * 60_000);
  const cron = `${latest.getUTCMinutes()} * * * *`;
  const cases = [
    { name: 'default-window', catch_up_s: undefined, fires: true }, // an hour: 20 minutes late fires
    { name: 'never', catch_up_s: 0, fires: false },
    { name: 'ten-minutes', catch_up_s: 600, fires: false },
  ];
  const agents: Record<string, string> = {};
  for (const c of cases) {
    const agent = (await ra('/v1/managed-agents', { method: 'POST', body: { name: c.name, config: chain } })).body;
    agents[c.name] = agent.id;
    const put = await rb(`/v1/managed-agents/${agent.id}/schedule`, { method: 'PUT', body: { cron, input: c.name, ...(c.catch_up_s === undefined ? {} : { catch_up_s: c.catch_up_s }) } });
    expect(put.status).toBe(200);
    expect(put.body.catch_up_s).toBe(c.catch_up_s ?? 3600);
  }
  for (const bad of [-1, 7 * 24 * 3600 + 1, 1.5]) {
    const r = await ra(`/v1/managed-agents/${agents['never']}/schedule`, { method: 'PUT', body: { cron, catch_up_s: bad } });
    expect(r.status).toBe(422);
    expect(r.body.error.param).toBe('catch_up_s');
  }
  // the first unfired tick was five hours ago: every tick since was missed
  const missedFrom = new Date(latest.getTime() - 5 * 3600_000);
  await client.query(`update managed_schedules set next_at = $1 where agent_id = any($2)`, [missedFrom.toISOString(), Object.values(agents)]);

  const runsOf = async (name: string) => (await ra(`/v1/managed-agents/${agents[name]}/runs`)).body.data as any[];
  await expect.poll(async () => (await runsOf('default-window')).length, { timeout: 20_000, interval: 100 }).toBe(1);
  await expect.poll(async () => (await client.query('select count(*)::int as n from managed_schedules where agent_id = any($1) and next_at > now()', [Object.values(agents)])).rows[0].n, { timeout: 20_000, interval: 100 }).toBe(3);
  await new Promise((res) => setTimeout(res, 600)); // both replicas swept several times more
  expect(await runsOf('default-window')).toHaveLength(1); // one run for five missed ticks
  expect(await runsOf('never')).toHaveLength(0);
  expect(await runsOf('ten-minutes')).toHaveLength(0);
  for (const c of cases) {
    const s = (await rb(`/v1/managed-agents/${agents[c.name]}/schedule`)).body;
    expect(Date.parse(s.next_at)).toBe(latest.getTime() + 3600_000); // the next tick after now, for all
    expect(s.last_tick).toBe(c.fires ? latest.toISOString() : null);
  }
  expect((await waitForRun(ra, (await runsOf('default-window'))[0].id)).status).toBe('completed');
});
