// A managed run survives its gateway being killed (SIGKILL) without paying for a step twice:
// a run killed while a step's call was in flight is taken over after its lease runs out, at
// that step, and completes, each step in /v1/calls once; a step whose call was already
// answered and metered but whose answer the run had not kept is not sent again: the run
// fails cleanly (interrupted). The gateway runs as a real process; the mock vendor's `slow`
// model holds a call long enough to kill the process under it, and `stall` holds it for good.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startOpenAIMock, type MockVendor } from '@optimizer/mock-providers';
import { seedDataDir, signup, testDatabase, type TestDatabase, hotStoreEnv } from './support/gateway.ts';
import { readEvents, restFor, waitForRun, type Rest } from './support/managed.ts';
import { spawnGateway, type GatewayProcess } from './support/process.ts';
import { PLATFORM_KEY } from './support/vendor.ts';

let vendor: MockVendor;
let db: TestDatabase;
let gw: GatewayProcess | null = null;

beforeAll(async () => {
  vendor = await startOpenAIMock({ apiKey: PLATFORM_KEY });
  db = await testDatabase();
});
afterAll(async () => {
  if (gw && gw.proc.exitCode === null) {
    gw.kill('SIGKILL');
    await gw.exited;
  }
  await vendor.close();
  await db.drop();
});

const dataDir = mkdtempSync(join(tmpdir(), 'optimizer-runs-'));
const env = {
  DATA_DIR: dataDir,
  ADMIN_KEY: `admin-${randomBytes(16).toString('hex')}`,
  OPTIMIZER_MASTER_KEY: randomBytes(32).toString('base64'),
  OPENAI_BASE_URL: '',
  OPENAI_API_KEY: PLATFORM_KEY,
  METER_FLUSH_MS: '50',
  MANAGED_RUN_LEASE_SECONDS: '2',
  MANAGED_RUN_SWEEP_MS: '200',
};

async function start(): Promise<GatewayProcess> {
  seedDataDir(dataDir);
  gw = await spawnGateway({ ...env, OPENAI_BASE_URL: vendor.url, ...(db.url ? hotStoreEnv(db.url) : {}) });
  return gw;
}

const seen = (model: string) => vendor.requests.filter((r) => (r.body as { model?: string } | undefined)?.model === model).length;

async function models(r: Rest): Promise<string[]> {
  return ((await r('/v1/calls?limit=100')).body.data as { model: string }[]).map((c) => c.model).sort();
}

it('resumes a run killed mid-step at that step, and meters each step once; a step metered but not kept fails the run cleanly', { timeout: 180_000 }, async () => {
  const first = await start();
  const one = await signup({ url: first.url }, 'Resumed');
  const two = await signup({ url: first.url }, 'Lost');
  const r1 = restFor(first.url, one.api_key);
  const r2 = restFor(first.url, two.api_key);

  // run 1: three steps, the second slow; killed while the second's call is at the vendor
  const chain = { kind: 'chain', steps: [{ name: 'a', prompt: 'Outline {{input}}', model: 'gpt-4o-mini' }, { name: 'b', prompt: 'Expand {{previous}}', model: 'slow' }, { name: 'c', prompt: 'Shorten {{previous}}', model: 'gpt-4.1-mini' }] };
  const agent = (await r1('/v1/managed-agents', { method: 'POST', body: { name: 'writer', config: chain } })).body;
  // run 2: one step whose call never returns; meanwhile a call annotated as that step is answered and metered, as if the step's call had finished and its answer were lost with the process
  const lone = (await r2('/v1/managed-agents', { method: 'POST', body: { name: 'lone', config: { kind: 'chain', steps: [{ name: 'only', prompt: 'Reply to {{input}}', model: 'stall' }] } } })).body;
  const [slowBefore, stallBefore] = [seen('slow'), seen('stall')];
  const run2 = (await r2(`/v1/managed-agents/${lone.id}/runs`, { method: 'POST', body: { input: 'hello' } })).body.id as string;
  await expect.poll(() => seen('stall'), { timeout: 15_000, interval: 10 }).toBe(stallBefore + 1);
  const direct = await r2('/v1/chat/completions', { method: 'POST', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }], optimizer: { run: { id: run2, seq: 0 }, step: { id: 'lone:only' } } } });
  expect(direct.status).toBe(200);
  await expect.poll(() => models(r2), { timeout: 10_000, interval: 50 }).toEqual(['gpt-4o-mini']);
  const run1 = (await r1(`/v1/managed-agents/${agent.id}/runs`, { method: 'POST', body: { input: 'a trip to Lyon' } })).body.id as string;
  await expect.poll(() => seen('slow'), { timeout: 15_000, interval: 10 }).toBe(slowBefore + 1);
  first.kill('SIGKILL');
  await first.exited;
  expect((await models(restFor('http://127.0.0.1:1', one.api_key)).catch(() => 'down'))).toBe('down');

  const second = await start();
  const s1 = restFor(second.url, one.api_key);
  const s2 = restFor(second.url, two.api_key);
  const done1 = await waitForRun(s1, run1, ['completed', 'failed'], 60_000);
  expect(done1).toMatchObject({ status: 'completed', error: null });
  expect(done1.steps.map((s: { name: string }) => s.name)).toEqual(['a', 'b', 'c']);
  const events = await readEvents(second.url, one.api_key, run1);
  expect(events.map((e) => e.event)).toEqual(['run.started', 'step.started', 'step.completed', 'step.started', 'run.resumed', 'step.started', 'step.completed', 'step.started', 'step.completed', 'run.completed']);
  expect(events.filter((e) => e.event === 'step.started').map((e) => [e.data.data.step, e.data.data.attempt])).toEqual([['a', 1], ['b', 1], ['b', 2], ['c', 1]]);
  // each step's call in /v1/calls once: the killed call to the slow model was never answered, so never metered
  await expect.poll(() => models(s1), { timeout: 10_000, interval: 100 }).toEqual(['gpt-4.1-mini', 'gpt-4o-mini', 'slow']);

  const done2 = await waitForRun(s2, run2, ['completed', 'failed'], 60_000);
  expect(done2).toMatchObject({ status: 'failed', steps: [] });
  expect(done2.error).toMatch(/not sent again/);
  const last = (await readEvents(second.url, two.api_key, run2)).at(-1)!;
  expect(last).toMatchObject({ event: 'run.failed', data: { data: { step: 'only', error: 'interrupted' } } });
  expect(await models(s2)).toEqual(['gpt-4o-mini']);
  // the resumed run 1 called the slow model once more; the failed run 2 did not call again
  expect([seen('slow'), seen('stall')]).toEqual([slowBefore + 2, stallBefore + 1]);
  second.kill('SIGTERM');
  expect(await second.exited).toBe(0);
});
