// An action agent's loop survives its gateway being killed (SIGKILL): the run is taken over after
// its lease runs out and resumes at the turn it had reached, with the conversation it kept (the
// earlier call and its result), without calling the connection again. The gateway runs as a real
// process; the mock vendor's `slow` model holds each turn long enough to kill the process under it.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startOpenAIMock, type MockVendor } from '@optimizer/mock-providers';
import { seedDataDir, signup, testDatabase, type TestDatabase, hotStoreEnv } from './support/gateway.ts';
import { startLoopback, type Loopback } from './support/loopback.ts';
import { readEvents, restFor, waitForRun } from './support/managed.ts';
import { spawnGateway, type GatewayProcess } from './support/process.ts';
import { PLATFORM_KEY } from './support/vendor.ts';

let vendor: MockVendor;
let db: TestDatabase;
let target: Loopback;
let gw: GatewayProcess | null = null;

beforeAll(async () => {
  vendor = await startOpenAIMock({ apiKey: PLATFORM_KEY });
  db = await testDatabase();
  target = await startLoopback((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"open_tickets":3}');
  });
});
afterAll(async () => {
  if (gw && gw.proc.exitCode === null) {
    gw.kill('SIGKILL');
    await gw.exited;
  }
  await vendor.close();
  await target.close();
  await db.drop();
});

const dataDir = mkdtempSync(join(tmpdir(), 'optimizer-loop-'));
const env = {
  DATA_DIR: dataDir,
  ADMIN_KEY: `admin-${randomBytes(16).toString('hex')}`,
  OPTIMIZER_MASTER_KEY: randomBytes(32).toString('base64'),
  OPENAI_API_KEY: PLATFORM_KEY,
  OUTBOUND_ALLOW_LIST: '127.0.0.1/32',
  METER_FLUSH_MS: '50',
  MANAGED_RUN_LEASE_SECONDS: '2',
  MANAGED_RUN_SWEEP_MS: '200',
};

async function start(): Promise<GatewayProcess> {
  seedDataDir(dataDir);
  gw = await spawnGateway({ ...env, OPENAI_BASE_URL: vendor.url, ...(db.url ? hotStoreEnv(db.url) : {}) });
  return gw;
}

/** Awaits one stage of the test, bounded: a stage that hangs fails naming itself, with the running gateway's log. */
async function stage<T>(label: string, p: Promise<T>, ms = 60_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${label}: not done in ${ms} ms\n${gw?.output().slice(-4000) ?? ''}`)), ms)));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

const turns = () => vendor.requests.filter((r) => (r.body as { model?: string } | undefined)?.model === 'slow');

it('resumes a loop run killed mid-turn at that turn, with its conversation, and runs no action twice', { timeout: 300_000 }, async () => {
  const first = await stage('first start', start(), 130_000);
  const tenant = await stage('signup', signup({ url: first.url }, 'Looping'));
  const r1 = restFor(first.url, tenant.api_key);
  expect((await stage('connection', r1('/v1/connections/desk', { method: 'PUT', body: { base_url: target.url } }))).status).toBe(201);
  vendor.script({ tool_calls: [{ id: 'call_a', name: 'desk', arguments: JSON.stringify({ method: 'GET', path: '/tickets' }) }] });
  const config = { kind: 'action', model: 'slow', connection: 'desk', instructions: 'Count the open tickets.', max_steps: 4, auto_approve: ['desk'] };
  const agent = (await stage('agent', r1('/v1/managed-agents', { method: 'POST', body: { name: 'counter', config } }))).body;
  const before = turns().length;
  const runId = (await stage('run', r1(`/v1/managed-agents/${agent.id}/runs`, { method: 'POST', body: { input: 'today' } }))).body.id as string;
  // the first turn's call ran (auto-approved); the second turn is at the vendor when the process dies
  await expect.poll(() => turns().length, { timeout: 20_000, interval: 10 }).toBe(before + 2);
  expect(target.seen).toHaveLength(1);
  first.kill('SIGKILL');
  await first.exited;

  vendor.script({ content: 'There are 3 open tickets.' });
  const second = await stage('second start', start(), 130_000);
  const r2 = restFor(second.url, tenant.api_key);
  const done = await waitForRun(r2, runId, ['completed', 'failed'], 60_000);
  expect(done).toMatchObject({ status: 'completed', output: 'There are 3 open tickets.', error: null });
  expect(done.actions).toMatchObject([{ connection: 'desk', path: '/tickets', status: 'executed', response: { status: 200, body: '{"open_tickets":3}' } }]);
  expect(target.seen).toHaveLength(1); // the action was not run again

  // the resumed turn sent the same conversation: the call and its result
  const resumed = turns().at(-1)!.body as { messages: any[] };
  expect(turns()).toHaveLength(before + 3);
  expect(resumed.messages.at(-2)).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'call_a' }] });
  expect(resumed.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_a', content: 'HTTP 200\n{"open_tickets":3}' });
  const events = await stage('events', readEvents(second.url, tenant.api_key, runId));
  expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
  expect(events.filter((e) => e.event === 'step.started').map((e) => [e.data.data.index, e.data.data.attempt])).toEqual([[0, 1], [1, 1], [1, 2]]);
  expect(events.map((e) => e.event)).toContain('run.resumed');
  expect(events.at(-1)!.event).toBe('run.completed');
  second.kill('SIGTERM');
  expect(await stage('stop', second.exited)).toBe(0);
});
