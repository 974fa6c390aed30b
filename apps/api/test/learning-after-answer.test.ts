// Learning runs after the answer (issue 31): a routed call that explores answers the client
// as fast as one that does not, though its probes and the judge's grades take 2 s each; what
// that learning spent is metered on the call once it ends; a streamed call explores too; and
// a graceful shutdown (what SIGTERM runs) during learning loses no metered spend.
import { createServer, request as httpRequest, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIMock, type MockVendor } from '@optimizer/mock-providers';
import { authed, signup, startGateway, testDatabase, type TestDatabase, type TestGateway } from './support/gateway.ts';
import { routeOnMockOpenAI, PLATFORM_KEY, type Rig } from './support/vendor.ts';
import { explorationOf, warmStep } from './support/optimizer.ts';

const BASELINE = 'gpt-4.1';
const SLOW_MS = 2_000;
const SERVE_MS = 150;

/**
 * A loopback vendor in front of the mock: the baseline answers in 150 ms, every probe (another
 * model, or the baseline at a lower effort) and every judge's grade in 2 s. It counts what it was asked for, by kind.
 */
async function slowLearningVendor(mock: MockVendor): Promise<{ url: string; asked: { serve: number; slow: number }; close(): Promise<void> }> {
  const asked = { serve: 0, slow: 0 };
  const target = new URL(mock.url);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: { model?: string; reasoning_effort?: string; response_format?: { json_schema?: { name?: string } }; messages?: { role: string; content?: unknown }[] } = {};
      try {
        body = JSON.parse(raw.toString('utf8')) as typeof body;
      } catch {
        // not JSON: forwarded as it came
      }
      const judging = body.response_format?.json_schema?.name === 'grade' || String(body.messages?.[0]?.content ?? '').includes('grade');
      // a probe: another model, or the baseline at a lower reasoning effort
      const slow = judging || (body.model !== undefined && body.model !== BASELINE) || body.reasoning_effort !== undefined;
      if (slow) asked.slow++;
      else asked.serve++;
      setTimeout(
        () => {
          const up = httpRequest({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } }, (r) => {
            res.writeHead(r.statusCode ?? 502, r.headers);
            r.pipe(res);
          });
          up.on('error', () => res.destroy());
          up.end(raw);
        },
        slow ? SLOW_MS : SERVE_MS,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}${target.pathname}`,
    asked,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

let mock: MockVendor;
let vendor: Awaited<ReturnType<typeof slowLearningVendor>>;
let database: TestDatabase;
let dataDir: string;
let gw: TestGateway | null = null;
let tenant: Awaited<ReturnType<typeof signup>>;

const start = (env: Record<string, string> = {}) => startGateway({ dataDir, database, env: { OPENAI_BASE_URL: vendor.url, OPENAI_API_KEY: PLATFORM_KEY, CIRCUIT_FAILURES: '1000', ...env } });
/** The pieces of a rig the optimizer's support helpers read. */
const rigOf = (g: TestGateway) => ({ gw: g, tenant, vendor: mock }) as unknown as Rig;

beforeAll(async () => {
  mock = await startOpenAIMock({ apiKey: PLATFORM_KEY });
  mock.script({ content: '{"score": 1, "reason": "correct"}' }); // every model answers alike; the judge passes it
  vendor = await slowLearningVendor(mock);
  database = await testDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'optimizer-learning-'));
  gw = await start();
  tenant = await signup(gw);
  expect((await routeOnMockOpenAI(rigOf(gw))).status).toBe(200);
}, 120_000);

afterAll(async () => {
  await gw?.stop();
  await database?.drop();
  await vendor?.close();
  await mock?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function ask(step: string, i: number, stream = false): Promise<{ ms: number; callId: string; text: string }> {
  const t0 = performance.now();
  const r = await fetch(`${gw!.url}/v1/chat/completions`, {
    method: 'POST',
    headers: authed(tenant.api_key),
    body: JSON.stringify({ model: 'auto', stream, messages: [{ role: 'user', content: `classify ticket ${i}` }], optimizer: { step: { id: step } } }),
  });
  const text = await r.text(); // the whole answer, or the whole stream to its [DONE]
  const ms = performance.now() - t0;
  expect(r.status, text).toBe(200);
  return { ms, callId: r.headers.get('x-optimizer-call-id')!, text };
}

async function callOf(callId: string): Promise<{ reasons: string[]; cost: { exploration: number; actual: number; served: number }; saving: number; grades: { kind: string }[] }> {
  const r = await fetch(`${gw!.url}/v1/calls/${callId}`, { headers: authed(tenant.api_key) });
  expect(r.status).toBe(200);
  return (await r.json()) as never;
}

async function activityOf(callId: string): Promise<{ outcome: string; cost: number }[]> {
  await gw!.services.meter.flush();
  const rows = (await gw!.services.db.em().getConnection().execute(`select outcome, cost_micros from activity where call_id = ? order by attempt`, [callId])) as { outcome: string; cost_micros: string | number }[];
  return rows.map((r) => ({ outcome: r.outcome, cost: Number(r.cost_micros) }));
}

describe('learning after the answer', () => {
  it('answers an exploring call as fast as one that does not explore, and meters its learning on it once that ends', async () => {
    warmStep(rigOf(gw!), 'explores'); // traffic enough for the step to probe
    const quiet: number[] = [];
    const exploring: number[] = [];
    const explored: string[] = [];
    for (let i = 0; i < 7; i++) {
      quiet.push((await ask('cold', i)).ms); // a new step: nothing to pay a probe back, so no probe
      const e = await ask('explores', i);
      exploring.push(e.ms);
      explored.push(e.callId);
    }
    const ratio = median(exploring) / median(quiet);
    console.log(`p50 answered: exploring ${median(exploring).toFixed(0)} ms, not exploring ${median(quiet).toFixed(0)} ms (${ratio.toFixed(2)}×); a probe or grade takes ${SLOW_MS} ms`);
    expect(ratio).toBeLessThan(1.2);
    expect(median(exploring)).toBeLessThan(SLOW_MS); // no answer waited for a probe

    await gw!.learned();
    let probed = 0;
    for (const id of explored) {
      const call = await callOf(id);
      if (!call.reasons.some((r) => /explored: probed/.test(r))) continue;
      probed++;
      // the probes and grades, metered on the call that caused them: its exploration, its actual cost and saving
      expect(call.cost.exploration).toBeGreaterThan(0);
      expect(call.cost.actual).toBeCloseTo(call.cost.served + call.cost.exploration, 6);
      expect(call.grades.some((g) => g.kind === 'probe')).toBe(true);
      const acts = await activityOf(id);
      expect(acts[0]!.outcome).toBe('ok'); // the answer
      expect(acts.filter((a) => a.outcome.startsWith('probe:') || a.outcome.startsWith('judge:')).length).toBeGreaterThan(0);
      expect(acts.slice(1).reduce((sum, a) => sum + a.cost, 0) / 1e6).toBeCloseTo(call.cost.exploration, 6);
    }
    expect(probed).toBeGreaterThanOrEqual(4);
    // the cold step's calls explored nothing
    const calls = (await (await fetch(`${gw!.url}/v1/calls?limit=100`, { headers: authed(tenant.api_key) })).json()) as { data: { id: string; cost: { exploration: number } }[] };
    expect(calls.data.filter((c) => !explored.includes(c.id)).every((c) => c.cost.exploration === 0)).toBe(true);
  }, 120_000);

  it('explores a streamed call on an open step, once its stream has ended', async () => {
    warmStep(rigOf(gw!), 'streams');
    let probed = false;
    for (let i = 0; i < 5 && !probed; i++) {
      const s = await ask('streams', i, true);
      expect(s.text).toContain('[DONE]');
      expect(s.ms).toBeLessThan(SLOW_MS);
      const call = await callOf(s.callId);
      if (!(await explorationOf(rigOf(gw!), s.callId, tenant.api_key))) continue;
      probed = call.reasons.some((r) => /explored: probed/.test(r));
      expect(probed).toBe(true);
      expect((await callOf(s.callId)).grades.some((g) => g.kind === 'probe')).toBe(true);
    }
    expect(probed).toBe(true);
  }, 120_000);

  it('meters what learning spent when the gateway shuts down gracefully while it runs', async () => {
    warmStep(rigOf(gw!), 'shutdown');
    const before = vendor.asked.slow;
    const answered = await ask('shutdown', 1);
    expect(answered.ms).toBeLessThan(SLOW_MS);
    // the probes are under way at the vendor (each takes 2 s) when the shutdown begins
    await expect.poll(() => vendor.asked.slow, { timeout: 5_000, interval: 20 }).toBeGreaterThan(before);
    expect(gw!.services.learning.stats.running).toBe(1);
    await gw!.stop(); // SIGTERM's path (main.ts): the server closes, then the services, learning before the meter
    gw = await start();
    const acts = await activityOf(answered.callId);
    const learningActs = acts.filter((a) => a.outcome.startsWith('probe:') || a.outcome.startsWith('judge:'));
    // every request the learning made of the vendor is metered on the call, and its spend is on the call's record
    expect(learningActs.length).toBe(vendor.asked.slow - before);
    const spent = learningActs.reduce((sum, a) => sum + a.cost, 0);
    expect(spent).toBeGreaterThan(0);
    expect((await callOf(answered.callId)).cost.exploration).toBeCloseTo(spent / 1e6, 6);
  }, 120_000);

  it('aborts learning that outlasts the shutdown grace, and still meters every vendor request it made', async () => {
    await gw!.stop();
    gw = await start({ LEARNING_DRAIN_MS: '100' });
    warmStep(rigOf(gw), 'cut-short');
    const before = vendor.asked.slow;
    const answered = await ask('cut-short', 1);
    await expect.poll(() => vendor.asked.slow, { timeout: 5_000, interval: 20 }).toBeGreaterThan(before);
    const made = vendor.asked.slow - before;
    await gw.stop(); // 100 ms of grace, then the probes are aborted
    gw = await start();
    const acts = await activityOf(answered.callId);
    const learningActs = acts.filter((a) => a.outcome.startsWith('probe:') || a.outcome.startsWith('judge:'));
    expect(learningActs.length).toBe(made); // none was lost, each aborted one marked so
    expect(learningActs.every((a) => a.outcome.endsWith(':cancelled') || a.outcome.endsWith(':error'))).toBe(true);
  }, 120_000);
});
