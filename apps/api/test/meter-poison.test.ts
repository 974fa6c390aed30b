// Nothing a caller sends can stop the meter. NUL and lone surrogates, which PostgreSQL cannot
// store, are refused at the edge where a field names something (400 invalid_request naming the
// field) and made storable where a field is text (message content, tool arguments); a row the
// database still refuses is quarantined, never blocking the rows written with it, in a live
// batch and in the write-ahead replay at boot; the admin sees the quarantine and replays or
// discards a row; /metrics counts it. The refusals are the pipeline's, after the one JSON body parser
// both doors share; fast-path-differential.test.ts holds the two doors to the same answers.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIMock, type MockVendor } from '@optimizer/mock-providers';
import { authed, signup, startGateway, testDatabase, type TestDatabase, type TestGateway } from './support/gateway.ts';
import { PLATFORM_KEY } from './support/vendor.ts';
import type { CallRow, LedgerRow } from '../src/meter/rows.ts';

const NUL = '\u0000';
const LONE = '\ud800';
const BAD = [NUL, LONE];
const REPLACEMENT = '\uFFFD';
const ADMIN_KEY = `admin-${randomBytes(16).toString('hex')}`;

type Tenant = { api_key: string; account_id: string; workflow_id: string };
type ErrorBody = { error: { code: string; param: string | null; message: string } };

let vendor: MockVendor;
let db: TestDatabase;
let dataDir: string;
let gw: TestGateway;
let a: Tenant;
let b: Tenant;

const start = () => startGateway({ dataDir, database: db, env: { OPENAI_BASE_URL: vendor.url, OPENAI_API_KEY: PLATFORM_KEY, ADMIN_KEY } });
const admin = { authorization: `Bearer ${ADMIN_KEY}` };

beforeAll(async () => {
  vendor = await startOpenAIMock({ apiKey: PLATFORM_KEY });
  db = await testDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'optimizer-poison-'));
  gw = await start();
  a = await signup(gw, 'Poisoned');
  b = await signup(gw, 'Bystander');
  const capture = await fetch(`${gw.url}/v1/settings/capture`, { method: 'PUT', headers: authed(a.api_key), body: JSON.stringify({ content: 'full', redact_pii: false }) });
  expect(capture.status).toBe(200);
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  await vendor?.close();
  await db?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

// JSON.stringify writes NUL and a lone surrogate as the escapes \u0000 and \ud800: the body is the JSON a client sends.
const post = (path: string, key: string, body: unknown) => fetch(`${gw.url}${path}`, { method: 'POST', headers: authed(key), body: JSON.stringify(body) });

const chat = (extra: Record<string, unknown> = {}) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }], ...extra });
const tool = (name = 'lookup', description = 'Looks a thing up.') => ({ type: 'function', function: { name, description, parameters: { type: 'object', properties: {} } } });
/** A conversation with a tool call and its result; `over` edits the assistant's call and the tool's answer. */
const toolTurns = (over: { id?: string; name?: string; args?: string; answerId?: string } = {}) => [
  { role: 'user', content: 'look it up' },
  { role: 'assistant', content: null, tool_calls: [{ id: over.id ?? 'call_1', type: 'function', function: { name: over.name ?? 'lookup', arguments: over.args ?? '{}' } }] },
  { role: 'tool', tool_call_id: over.answerId ?? 'call_1', content: 'found' },
];

/** Completion fields that name something: each refused with NUL or a lone surrogate, the field named. */
const refusedChat: [string, (bad: string) => Record<string, unknown>][] = [
  ['model', (x) => chat({ model: `gpt-4o-mini${x}` })],
  ['optimizer.step.id', (x) => chat({ optimizer: { step: { id: `s${x}` } } })],
  ['optimizer.step.kind', (x) => chat({ optimizer: { step: { id: 's', kind: `k${x}` } } })],
  ['optimizer.run.id', (x) => chat({ optimizer: { run: { id: `r${x}` } } })],
  ['optimizer.run.parent', (x) => chat({ optimizer: { run: { id: 'r', parent: `p${x}` } } })],
  ['optimizer.source.file', (x) => chat({ optimizer: { source: { file: `f${x}.ts` } } })],
  ['optimizer.source.release', (x) => chat({ optimizer: { source: { release: `v${x}` } } })],
  ['messages.0.role', (x) => chat({ messages: [{ role: `user${x}`, content: 'hi' }] })],
  ['messages.0.name', (x) => chat({ messages: [{ role: 'user', name: `jane${x}`, content: 'hi' }] })],
  ['messages.1.tool_calls.0.id', (x) => chat({ messages: toolTurns({ id: `call${x}` }), tools: [tool()] })],
  ['messages.1.tool_calls.0.function.name', (x) => chat({ messages: toolTurns({ name: `lookup${x}` }), tools: [tool()] })],
  ['messages.2.tool_call_id', (x) => chat({ messages: toolTurns({ answerId: `call${x}` }), tools: [tool()] })],
  ['tools.0.function.name', (x) => chat({ tools: [tool(`lookup${x}`)] })],
  ['tool_choice.function.name', (x) => chat({ tools: [tool()], tool_choice: { type: 'function', function: { name: `lookup${x}` } } })],
  ['tool_choice', (x) => chat({ tools: [tool()], tool_choice: `auto${x}` })],
  ['user', (x) => chat({ user: `u${x}` })],
  ['metadata', (x) => chat({ metadata: { [`k${x}`]: 'v' } })],
];

/** Completion fields that hold text: answered, and what the meter keeps is made storable. */
const acceptedChat: [string, (bad: string) => Record<string, unknown>][] = [
  ['messages.0.content', (x) => chat({ messages: [{ role: 'user', content: `hello${x}world` }] })],
  ['messages.0.content.0.text', (x) => chat({ messages: [{ role: 'user', content: [{ type: 'text', text: `parts${x}` }] }] })],
  ['messages.1.tool_calls.0.function.arguments', (x) => chat({ messages: toolTurns({ args: JSON.stringify({ q: `a${x}` }) }), tools: [tool()] })],
  ['tools.0.function.description', (x) => chat({ tools: [tool('lookup', `describes${x}`)] })],
  ['metadata.k', (x) => chat({ metadata: { k: `v${x}` } })],
  ['stop.0', (x) => chat({ stop: [`end${x}`] })],
];

async function listAll(key: string): Promise<{ id: string; model: string; cost: { actual: number } }[]> {
  const out: { id: string; model: string; cost: { actual: number } }[] = [];
  let after: string | undefined;
  for (;;) {
    const r = await fetch(`${gw.url}/v1/calls?limit=37${after ? `&starting_after=${after}` : ''}`, { headers: authed(key) });
    expect(r.status).toBe(200);
    const page = ((await r.json()) as { data: { id: string; model: string; cost: { actual: number } }[] }).data;
    out.push(...page);
    if (page.length < 37) return out;
    after = page.at(-1)!.id;
  }
}

function expectListedOnce(listed: { id: string }[], ids: string[]): void {
  const seen = listed.map((c) => c.id);
  expect(new Set(seen).size).toBe(seen.length); // nothing listed twice
  for (const id of ids) expect(seen.filter((s) => s === id)).toHaveLength(1);
}

async function quarantine(status = 'quarantined') {
  const r = await fetch(`${gw.url}/v1/admin/meter/quarantine?status=${status}`, { headers: admin });
  expect(r.status).toBe(200);
  return ((await r.json()) as { data: { id: string; kind: string; table: string; account_id: string | null; sqlstate: string; reason: string; source: string; status: string; row: Record<string, unknown> }[] }).data;
}

async function quarantinedMetric(): Promise<number> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('optimizer_meter_quarantined_rows_total'));
  expect(line).toBeDefined();
  return Number(line!.split(' ').at(-1));
}

function callRow(t: Tenant, id: string, over: Partial<CallRow> = {}): CallRow {
  return {
    id,
    account_id: t.account_id,
    workflow_id: t.workflow_id,
    created_at: new Date().toISOString(),
    requested_model: 'gpt-4o-mini',
    served_model: 'gpt-4o-mini',
    provider: 'openai',
    stream: false,
    status: 200,
    error_code: null,
    prompt_tokens: 10,
    completion_tokens: 5,
    cached_tokens: 0,
    reasoning_tokens: 0,
    usage_estimated: false,
    baseline_micros: 7,
    served_micros: 7,
    actual_micros: 7,
    exploration_micros: 0,
    saving_micros: 0,
    saving_source: null,
    cache_hit: false,
    reasons: ['written by hand'],
    latency_ms: 1,
    overhead_ms: 0.1,
    vendor_status: 200,
    idempotency_key: null,
    detail: {},
    ...over,
  };
}

function ledgerRow(account: string, id: string, over: Partial<LedgerRow> = {}): LedgerRow {
  return { id, txn_id: `txn_${id}`, account_id: account, book: 'wallet', amount_micros: -7, kind: 'usage', call_id: null, ref: null, created_at: new Date().toISOString(), ...over };
}

const rid = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;

describe('the meter under hostile input', { timeout: 180_000 }, () => {
  const answered = { a: [] as string[], b: [] as string[] };
  let contentCall = '';

  it('refuses NUL and lone surrogates in every completion field that names something, naming the field', async () => {
    for (const bad of BAD) {
      for (const [param, body] of refusedChat) {
        const r = await post('/v1/chat/completions', a.api_key, body(bad));
        const e = (await r.json()) as ErrorBody;
        expect({ param, status: r.status, code: e.error.code, named: e.error.param }).toEqual({ param, status: 400, code: 'invalid_request', named: param });
        expect(r.headers.get('x-optimizer-call-id')).toBeNull(); // refused before anything is metered
      }
    }
  });

  it('answers text fields that hold them, and keeps them storable in the record and the recording', async () => {
    for (const bad of BAD) {
      for (const [field, body] of acceptedChat) {
        const r = await post('/v1/chat/completions', a.api_key, body(bad));
        expect({ field, status: r.status, body: r.status === 200 ? '' : await r.text() }).toEqual({ field, status: 200, body: '' });
        const id = r.headers.get('x-optimizer-call-id')!;
        answered.a.push(id);
        if (field === 'messages.0.content' && bad === NUL) contentCall = id;
      }
      // a key that is not a field at all, with the character in its name: the vendor refuses it; the failure is metered
      const r = await post('/v1/chat/completions', a.api_key, { ...chat(), [`x${bad}`]: 1 });
      expect(r.status).toBeLessThan(500);
      // its error answer names no call: the newest call listed is it, when it was metered
      const [newest] = ((await (await fetch(`${gw.url}/v1/calls?limit=1`, { headers: authed(a.api_key) })).json()) as { data: { id: string; status: number }[] }).data;
      if (newest && !answered.a.includes(newest.id)) {
        expect(newest.status).toBe(r.status);
        answered.a.push(newest.id);
      }
    }
    const rec = await fetch(`${gw.url}/v1/workflows/${a.workflow_id}/recordings/${contentCall}`, { headers: authed(a.api_key) });
    expect(rec.status).toBe(200);
    const recording = (await rec.json()) as { content: string; request: { messages: { content: string }[] } };
    expect(recording.content).toBe('full');
    expect(recording.request.messages[0]!.content).toBe(`hello${REPLACEMENT}world`);
  });

  it('refuses them in the names of an embeddings call and embeds text that holds them', async () => {
    for (const bad of BAD) {
      for (const [param, body] of [
        ['model', { model: `a${bad}b`, input: 'x' }],
        ['model', { model: `text-embedding-3-small${bad}`, input: 'x' }],
        ['user', { model: 'text-embedding-3-small', input: 'x', user: `u${bad}` }],
        ['encoding_format', { model: 'text-embedding-3-small', input: 'x', encoding_format: `float${bad}` }],
      ] as const) {
        const r = await post('/v1/embeddings', a.api_key, body);
        const e = (await r.json()) as ErrorBody;
        expect({ param, status: r.status, code: e.error.code, named: e.error.param }).toEqual({ param, status: 400, code: 'invalid_request', named: param });
        expect(r.headers.get('x-optimizer-call-id')).toBeNull();
      }
      for (const input of [`text${bad}`, ['ok', `text${bad}`]]) {
        const r = await post('/v1/embeddings', a.api_key, { model: 'text-embedding-3-small', input, user: 'jane' });
        expect(r.status).toBe(200);
        answered.a.push(r.headers.get('x-optimizer-call-id')!);
      }
    }
  });

  it('refuses them in the ids of an outcome', async () => {
    for (const bad of BAD) {
      for (const param of ['run_id', 'step_id']) {
        const r = await post('/v1/outcomes', a.api_key, { run_id: 'r', step_id: 's', [param]: `id${bad}`, signals: { run_completed: true } });
        const e = (await r.json()) as ErrorBody;
        expect({ param, status: r.status, code: e.error.code, named: e.error.param }).toEqual({ param, status: 400, code: 'invalid_request', named: param });
      }
      const verdict = await post('/v1/outcomes', a.api_key, { run_id: 'r', step_id: 's', signals: { human_verdict: `accepted${bad}` } });
      expect(verdict.status).toBe(422);
    }
    // a step's call, and its outcome with well-formed ids: accepted
    const call = await post('/v1/chat/completions', a.api_key, chat({ optimizer: { run: { id: 'run-1' }, step: { id: 'answer' } } }));
    expect(call.status).toBe(200);
    answered.a.push(call.headers.get('x-optimizer-call-id')!);
    expect((await post('/v1/outcomes', a.api_key, { run_id: 'run-1', step_id: 'answer', signals: { run_completed: true } })).status).toBe(202);
  });

  it('then meters 100 calls of two tenants, each listed exactly once, with totals that add up, across a restart', async () => {
    const jobs = Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? 'a' : 'b') as 'a' | 'b');
    for (let i = 0; i < jobs.length; i += 10) {
      await Promise.all(
        jobs.slice(i, i + 10).map(async (who) => {
          const r = await post('/v1/chat/completions', (who === 'a' ? a : b).api_key, chat({ messages: [{ role: 'user', content: `normal call ${i}` }] }));
          expect(r.status).toBe(200);
          answered[who].push(r.headers.get('x-optimizer-call-id')!);
        }),
      );
    }
    expect(answered.b).toHaveLength(50);
    expect(await quarantine()).toEqual([]); // nothing needed setting aside: the edge and the row builder kept it all storable

    for (const pass of ['before', 'after'] as const) {
      for (const [t, ids] of [
        [a, answered.a],
        [b, answered.b],
      ] as const) {
        const listed = await listAll(t.api_key);
        expectListedOnce(listed, ids);
        expect(listed.map((c) => c.id).sort()).toEqual([...ids].sort());
        const totals = (await (await fetch(`${gw.url}/v1/dashboard/savings`, { headers: authed(t.api_key) })).json()) as { calls: number; actual_cost: number };
        expect({ pass, calls: totals.calls }).toEqual({ pass, calls: listed.length });
        expect(totals.actual_cost).toBeCloseTo(
          listed.reduce((s, c) => s + c.cost.actual, 0),
          5,
        );
      }
      if (pass === 'before') {
        await gw.stop();
        gw = await start(); // the same data folder and database
      }
    }
  });

  it('sets a row the database refuses aside in a live batch and writes the rest of it', async () => {
    const meter = gw.services.meter;
    const good = Array.from({ length: 20 }, () => rid('call_live'));
    for (const id of good.slice(0, 10)) meter.record({ calls: [callRow(b, id)], activity: [], events: [] });
    // 2^31 tokens do not fit the integer column: PostgreSQL refuses the row (22003), not the connection
    const bad = rid('call_live_bad');
    meter.record({ calls: [callRow(b, bad, { prompt_tokens: 2 ** 31 })], activity: [], events: [] });
    for (const id of good.slice(10)) meter.record({ calls: [callRow(b, id)], activity: [], events: [] });
    await meter.flush();
    answered.b.push(...good);
    const listed = await listAll(b.api_key);
    expectListedOnce(listed, good);
    expect(listed.some((c) => c.id === bad)).toBe(false);
    const q = await quarantine();
    expect(q).toHaveLength(1);
    expect(q[0]).toMatchObject({ kind: 'calls', table: 'call_records', account_id: b.account_id, sqlstate: '22003', source: 'flush', status: 'quarantined' });
    expect(q[0]!.row.id).toBe(bad);
    expect(await quarantinedMetric()).toBe(1);
    const discarded = await fetch(`${gw.url}/v1/admin/meter/quarantine/${q[0]!.id}/discard`, { method: 'POST', headers: admin });
    expect(discarded.status).toBe(200);
    expect(await quarantine()).toEqual([]);
  });

  it('boots on a write-ahead file holding rows the database refuses: quarantined, the rest replayed, visible to the admin and in /metrics', async () => {
    await gw.stop();
    const missingAccount = rid('acct_gone');
    const good = rid('call_walgood');
    const nulCall = rid('call_walnul');
    const outOfRange = rid('call_walbig');
    const line = (o: unknown) => `${JSON.stringify(o)}\n`;
    // as an earlier version wrote it: rows with NUL and lone surrogates in them, a row that does not
    // fit its column, a ledger leg that breaks a check, one for an account that does not exist, and a torn last line
    const text =
      line({ calls: [callRow(a, good)], activity: [], events: [] }) +
      line({ calls: [callRow(a, nulCall, { requested_model: `gpt${NUL}4o`, detail: { annotation: { step: { id: `s${NUL}${LONE}` } } } })], activity: [], events: [] }) +
      line({ calls: [callRow(a, outOfRange, { completion_tokens: 2 ** 40 })], activity: [], events: [] }) +
      line({ calls: [], activity: [], events: [], ledger: [ledgerRow(a.account_id, rid('led_check'), { book: 'bogus' as LedgerRow['book'] })] }) +
      line({ calls: [], activity: [], events: [], ledger: [ledgerRow(missingAccount, rid('led_fk'))] }) +
      line(null) +
      '{"calls":[{"id":"call_torn","account_id":"';
    const walDir = join(dataDir, 'wal');
    writeFileSync(join(walDir, `meter-0000000000001-1-000001.log`), text, { mode: 0o600 });

    gw = await start(); // not fatal
    answered.a.push(good, nulCall);
    const listed = await listAll(a.api_key);
    expectListedOnce(listed, answered.a);
    expect(listed.find((c) => c.id === nulCall)!.model).toBe(`gpt${REPLACEMENT}4o`);
    expect(listed.some((c) => c.id === outOfRange)).toBe(false);
    expect(readdirSync(walDir).filter((f) => f.startsWith('meter-0000000000001'))).toEqual([]); // replayed and removed

    const q = await quarantine();
    expect(q.map((e) => [e.kind, e.sqlstate, e.source]).sort()).toEqual([
      ['calls', '22003', 'replay'],
      ['ledger', '23503', 'replay'],
      ['ledger', '23514', 'replay'],
    ]);
    expect(await quarantinedMetric()).toBe(3); // this process's count: the three found at boot

    // the admin reads one, replays what still fails (409, it stays), discards it, and replays one once its cause is fixed
    const big = q.find((e) => e.sqlstate === '22003')!;
    const one = await fetch(`${gw.url}/v1/admin/meter/quarantine/${big.id}`, { headers: admin });
    expect(((await one.json()) as { row: { id: string } }).row.id).toBe(outOfRange);
    const again = await fetch(`${gw.url}/v1/admin/meter/quarantine/${big.id}/replay`, { method: 'POST', headers: admin });
    expect(again.status).toBe(409);
    expect(((await again.json()) as ErrorBody).error.code).toBe('conflict');
    expect((await fetch(`${gw.url}/v1/admin/meter/quarantine/${big.id}/discard`, { method: 'POST', headers: admin })).status).toBe(200);

    const fk = q.find((e) => e.sqlstate === '23503')!;
    expect(fk.account_id).toBe(missingAccount);
    await gw.services.db.em().getConnection().execute('insert into accounts (id, company, email) values (?, ?, ?)', [missingAccount, 'Restored', `${missingAccount}@example.com`]);
    const replayed = await fetch(`${gw.url}/v1/admin/meter/quarantine/${fk.id}/replay`, { method: 'POST', headers: admin });
    expect(replayed.status).toBe(200);
    expect(((await replayed.json()) as { status: string }).status).toBe('replayed');
    const legs = await gw.services.db.em().getConnection().execute('select amount_micros from ledger_entries where account_id = ?', [missingAccount]);
    expect(legs.map((l) => Number(l.amount_micros))).toEqual([-7]);
    expect((await fetch(`${gw.url}/v1/admin/meter/quarantine/${fk.id}/replay`, { method: 'POST', headers: admin })).status).toBe(409); // once

    expect((await quarantine()).map((e) => e.sqlstate)).toEqual(['23514']);
    expect((await quarantine('all')).map((e) => e.status).sort()).toEqual(['discarded', 'discarded', 'quarantined', 'replayed']);
    expect((await fetch(`${gw.url}/v1/admin/meter/quarantine`, { headers: authed(a.api_key) })).status).toBe(401); // the admin's only

    // and the gateway keeps booting on the same folder with everything listed
    await gw.stop();
    gw = await start();
    expectListedOnce(await listAll(a.api_key), answered.a);
    expectListedOnce(await listAll(b.api_key), answered.b);
  });
});
