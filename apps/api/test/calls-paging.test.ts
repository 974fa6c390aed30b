// Reading calls beyond the newest page. Paging through GET /v1/calls: `starting_after` (the last
// call id of a page) reads the calls older than it, newest first, on every door and through the
// SDK. Calls that share a time (to the millisecond, and apart by microseconds only) are neither
// skipped nor read twice; another tenant's calls never show, and a call id that is not the
// tenant's is a 404. GET /v1/calls/:id reads one call however old, the same on every door.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OptimizerClient, OptimizerError } from '../../../packages/sdk/src/index.ts';
import type { CallRow } from '../src/meter/rows.ts';
import { gql, operation, rest, trpcClient, type Creds } from './support/doors.ts';
import { signup, startGateway, type TestGateway } from './support/gateway.ts';

let gw: TestGateway;
let a: { api_key: string; account_id: string; workflow_id: string };
let b: { api_key: string; account_id: string; workflow_id: string };
/** Tenant a's call ids in the order the list promises: newest first, the id breaking ties. */
let expected: string[];

const exec = (q: string, params: unknown[] = []) => gw.services.db.em().getConnection().execute(q, params);

function call(id: string, t: { account_id: string; workflow_id: string }, at: Date): CallRow {
  return {
    id, account_id: t.account_id, workflow_id: t.workflow_id, created_at: at.toISOString(), requested_model: 'm', served_model: 'm', provider: 'openai',
    stream: false, status: 200, error_code: null, prompt_tokens: 1, completion_tokens: 1, cached_tokens: 0, reasoning_tokens: 0, usage_estimated: false,
    baseline_micros: 10, served_micros: 10, actual_micros: 10, exploration_micros: 0, saving_micros: 0, saving_source: null,
    cache_hit: false, reasons: [], latency_ms: 1, overhead_ms: 0, vendor_status: 200, idempotency_key: null, detail: {},
  };
}

beforeAll(async () => {
  gw = await startGateway();
  a = await signup(gw);
  b = await signup(gw);
  const base = Date.now() - 60_000;
  // 137 calls of a's in 40 distinct milliseconds (so most share their time), b's interleaved
  const rows = Array.from({ length: 137 }, (_, i) => call(`call_page_a_${String((i * 7919) % 1000).padStart(3, '0')}_${i}`, a, new Date(base + (i % 40) * 3)));
  const others = Array.from({ length: 60 }, (_, i) => call(`call_page_b_${i}`, b, new Date(base + (i % 40) * 3)));
  gw.services.meter.record({ calls: [...rows, ...others], activity: [], events: [] });
  await gw.services.meter.flush();
  // a few rows apart by microseconds only, as rows written by other means may be
  await exec(`update call_records set created_at = created_at + interval '250 microseconds' where account_id = ? and id like '%\\_1_' escape '\\'`, [a.account_id]);
  const ordered = (await exec(`select id from call_records where account_id = ? order by created_at desc, id desc`, [a.account_id])) as { id: string }[];
  expected = ordered.map((r) => r.id);
  expect(expected).toHaveLength(137);
});
afterAll(async () => {
  await gw?.close();
});

const creds = (): Creds => ({ key: a.api_key });

async function restPage(query: string): Promise<string[]> {
  const r = await rest(gw.url, creds(), 'GET', `/v1/calls?${query}`);
  expect(r.status, query).toBe(200);
  return (r.body.data as { id: string }[]).map((c) => c.id);
}

describe('paging through calls', () => {
  it('reads every call of the tenant once, in order, a page at a time (REST)', async () => {
    const seen: string[] = [];
    let after = '';
    for (let pages = 0; pages < 20; pages++) {
      const page = await restPage(`limit=25${after ? `&starting_after=${after}` : ''}`);
      seen.push(...page);
      if (page.length < 25) break;
      after = page.at(-1)!;
    }
    expect(seen).toEqual(expected);
  });

  it('gives the same page on tRPC and GraphQL', async () => {
    const after = expected[24]!;
    const want = expected.slice(25, 35);
    expect(await restPage(`limit=10&starting_after=${after}`)).toEqual(want);
    const trpc = trpcClient(gw.url, creds());
    expect(((await trpc.calls.list.query({ limit: 10, starting_after: after })) as { id: string }[]).map((c) => c.id)).toEqual(want);
    const r = await gql(gw.url, creds(), operation('Query', 'calls', { limit: 'Int', startingAfter: 'String' }), { limit: 10, startingAfter: after });
    expect(r.errors).toBeUndefined();
    expect((r.data.calls as { id: string }[]).map((c) => c.id)).toEqual(want);
  });

  it('pages within one agent, and through the SDK to the end', async () => {
    const sdk = new OptimizerClient({ baseURL: gw.url, apiKey: a.api_key });
    const all: string[] = [];
    for await (const c of sdk.calls.all({ agent: a.workflow_id, limit: 30 })) all.push(c.id);
    expect(all).toEqual(expected);
    expect(await sdk.calls.list({ limit: 5, starting_after: expected.at(-1)! })).toEqual([]);
  });

  it("answers 404 for a call id that is not the tenant's, another tenant's included", async () => {
    for (const id of ['call_page_b_3', 'call_missing']) {
      const r = await rest(gw.url, creds(), 'GET', `/v1/calls?starting_after=${id}`);
      expect(r.status, id).toBe(404);
      expect(r.body.error).toMatchObject({ code: 'not_found', param: 'starting_after' });
    }
    const theirs = await rest(gw.url, { key: b.api_key }, 'GET', `/v1/calls?limit=500&starting_after=call_page_b_0`);
    expect((theirs.body.data as { id: string }[]).every((c) => c.id.startsWith('call_page_b_'))).toBe(true);
  });
});

describe('one call by its id', () => {
  it('reads the oldest call as the list shows it, on REST, tRPC, GraphQL and the SDK', async () => {
    const oldest = expected.at(-1)!;
    const r = await rest(gw.url, creds(), 'GET', `/v1/calls/${oldest}`);
    expect(r.status).toBe(200);
    const listed = await rest(gw.url, creds(), 'GET', `/v1/calls?limit=1&starting_after=${expected.at(-2)!}`);
    // as listed, with its attempts besides (these rows were metered without any)
    const { attempts, ...asListed } = r.body as Record<string, unknown>;
    expect(asListed).toEqual((listed.body.data as unknown[])[0]);
    expect(attempts).toEqual([]);
    const trpc = trpcClient(gw.url, creds());
    expect(await trpc.calls.get.query({ id: oldest })).toEqual(r.body);
    const g = await gql(gw.url, creds(), operation('Query', 'call', { id: 'String!' }), { id: oldest });
    expect(g.errors).toBeUndefined();
    expect((g.data.call as { id: string }).id).toBe(oldest);
    const sdk = new OptimizerClient({ baseURL: gw.url, apiKey: a.api_key });
    expect(await sdk.calls.get(oldest)).toEqual(r.body);
    // find: the same call however many came after it (it read only the newest 100 before)
    expect((await sdk.calls.find(oldest))?.id).toBe(oldest);
  });

  it("answers 404 for another tenant's call and an unknown one; the SDK's find gives null", async () => {
    for (const id of ['call_page_b_3', 'call_missing']) {
      const r = await rest(gw.url, creds(), 'GET', `/v1/calls/${id}`);
      expect(r.status, id).toBe(404);
      expect(r.body.error).toMatchObject({ code: 'not_found', param: 'id' });
      const g = await gql(gw.url, creds(), operation('Query', 'call', { id: 'String!' }), { id });
      expect(g.errors?.[0]?.extensions?.code, id).toBe('NOT_FOUND');
    }
    const sdk = new OptimizerClient({ baseURL: gw.url, apiKey: a.api_key });
    expect(await sdk.calls.find('call_page_b_3')).toBeNull();
    await expect(sdk.calls.get('call_page_b_3')).rejects.toBeInstanceOf(OptimizerError);
  });
});
