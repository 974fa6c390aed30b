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
