// The hot route is as strict as node:http, on raw connections, and both doors answer
// alike: the socket path (FAST_PATH on) and node:http with Fastify (FAST_PATH off) each
// check the key as soon as the head is read, cut a trickling head or body at an absolute
// deadline, honour the client's FIN, and refuse a model name with control characters or
// a body nested 5,000 deep with a catalogued 4xx before any vendor call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signup } from './support/gateway.ts';
import { startRig, type Rig } from './support/vendor.ts';
import { chatRequest, openRaw, sleep } from './support/raw-http.ts';

const HEADERS_MS = 1000;
const REQUEST_MS = 2000;

describe.each([
  ['the socket path', 'on'],
  ['node:http and Fastify', 'off'],
])('%s', (_name, fastPath) => {
  let rig: Rig;
  let port: number;
  beforeAll(async () => {
    rig = await startRig({ env: { FAST_PATH: fastPath, HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_MS), HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS) } });
    port = Number(new URL(rig.gw.url).port);
  });
  afterAll(async () => {
    await rig.close();
  });
  const body = (content: string) => JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] });

  it('refuses a missing or wrong key as soon as the head is read, before any of a 19 MB body', async () => {
    for (const key of [undefined, 'sk-opt-not-a-real-key', 'sk-proj-someone-elses']) {
      const c = await openRaw(port);
      c.socket.write(chatRequest({ key, body: '', contentLength: 19_000_000 }));
      await expect.poll(() => c.answers.length, { timeout: REQUEST_MS - 500 }).toBe(1);
      expect(c.answers[0]!.status).toBe(401);
      expect(JSON.parse(c.answers[0]!.body).error.code).toMatch(/^(missing|invalid)_api_key$/);
      c.socket.destroy();
    }
  });

  it('reads and drops a small refused body and keeps the connection; closes without reading a large one', async () => {
    const c = await openRaw(port);
    const refused = 'x'.repeat(60_000);
    c.socket.write(chatRequest({ key: 'sk-opt-wrong', body: '', contentLength: refused.length }));
    await expect.poll(() => c.answers.length).toBe(1);
    c.socket.write(refused + chatRequest({ key: rig.tenant.api_key, body: body('after a refusal') }));
    await expect.poll(() => c.answers.length).toBe(2);
    expect(c.answers.map((a) => a.status)).toEqual([401, 200]);
    expect(JSON.parse(c.answers[1]!.body).choices[0].message.content).toContain('after a refusal');
    c.socket.destroy();

    const big = await openRaw(port);
    big.socket.write(chatRequest({ key: 'sk-opt-wrong', body: 'x'.repeat(1000), contentLength: 1_000_000 }));
    await expect.poll(() => big.socket.readableEnded).toBe(true); // the gateway's FIN
    expect(big.answers[0]!.status).toBe(401);
    expect(big.answers[0]!.headers.connection).toBe('close');
  });

  it('looks up a key this replica does not hold in memory while the body waits, then serves the request', async () => {
    const tenant = await signup(rig.gw);
    // the key stays valid in the database; this replica forgets it, as a replica that did not issue it never knew it
    const rows = (await rig.gw.services.db.em().getConnection().execute('select hash from api_keys where account_id = ?', [tenant.account_id])) as { hash: string }[];
    // the revoke's notice comes back to this replica too, and forgets the key again when it lands: wait for it to land
    // first, or it can forget the key the request below has just looked up (the notice's handlers run in the order they
    // subscribed, the key cache's first)
    const noticed = new Set<string>();
    await rig.gw.services.hot.subscribe('keys:revoked', (hash) => void noticed.add(hash));
    for (const r of rows) await rig.gw.services.keys.revoke(r.hash);
    await expect.poll(() => rows.every((r) => noticed.has(r.hash))).toBe(true);
    expect(rig.gw.services.keys.cached(tenant.api_key)).toBeUndefined();
    const c = await openRaw(port);
    const b = body(`looked up ${'y'.repeat(200_000)}`);
    const text = chatRequest({ key: tenant.api_key, body: b });
    c.socket.write(text.slice(0, text.length - b.length));
    c.socket.write(text.slice(text.length - b.length)); // the body follows the head at once, while the key is looked up
    // a 200 KB prompt over the dev allowance's size bound is counted by the tokenizer, loaded on first use (about a second)
    await expect.poll(() => c.answers.length, { timeout: 10_000 }).toBe(1);
    expect(c.answers[0]!.status).toBe(200);
    expect(JSON.parse(c.answers[0]!.body).choices[0].message.content).toContain('looked up yyy');
    expect(rig.gw.services.keys.cached(tenant.api_key)).toBeDefined();
    c.socket.destroy();
  });

  it('cuts a head sent one byte at a time at the headers deadline, with 408', async () => {
    const c = await openRaw(port);
    const text = chatRequest({ key: rig.tenant.api_key, body: body('slow head') });
    for (let i = 0; i < text.length && !c.closed(); i++) {
      c.socket.write(text[i]!);
      await sleep(100); // the whole head would take ~15 s
    }
    expect(c.closed()).toBe(true);
    expect(c.answers[0]?.status).toBe(408);
    expect(JSON.parse(c.answers[0]!.body).error.code).toBe('request_timeout');
    expect(c.answers[0]!.at).toBeGreaterThanOrEqual(HEADERS_MS - 50);
    expect(c.answers[0]!.at).toBeLessThan(HEADERS_MS + 1500);
  });

  it('cuts a body sent one byte at a time at the request deadline, with 408', async () => {
    const c = await openRaw(port);
    const b = body('slow body');
    const text = chatRequest({ key: rig.tenant.api_key, body: b });
    const head = text.length - b.length;
    c.socket.write(text.slice(0, head));
    const sentHeadAt = Date.now() - c.openedAt;
    for (let i = head; i < text.length && !c.closed(); i++) {
      c.socket.write(text[i]!);
      await sleep(100);
    }
    expect(c.closed()).toBe(true);
    expect(c.answers[0]?.status).toBe(408);
    expect(c.answers[0]!.at - sentHeadAt).toBeGreaterThanOrEqual(REQUEST_MS - 100);
    expect(c.answers[0]!.at).toBeLessThan(REQUEST_MS + 1500);
    expect(rig.vendor.requests.filter((r) => JSON.stringify(r.body ?? '').includes('slow body'))).toHaveLength(0);
  });

  it('closes at once when the client half-closes after a complete answer', async () => {
    const c = await openRaw(port);
    c.socket.write(chatRequest({ key: rig.tenant.api_key, body: body('then FIN') }));
    await expect.poll(() => c.answers.length).toBe(1);
    expect(c.answers[0]!.status).toBe(200);
    const finAt = Date.now() - c.openedAt;
    c.socket.end();
    await expect.poll(() => c.closed(), { timeout: 1000 }).toBe(true);
    expect(c.closedAt()! - finAt).toBeLessThan(500);
  });

  it('answers a truncated body followed by FIN with 400 at once', async () => {
    const c = await openRaw(port);
    const b = body('truncated');
    c.socket.write(chatRequest({ key: rig.tenant.api_key, body: b.slice(0, 10), contentLength: b.length }));
    await sleep(50);
    const finAt = Date.now() - c.openedAt;
    c.socket.end();
    await expect.poll(() => c.closed(), { timeout: 1000 }).toBe(true);
    expect(c.answers[0]?.status).toBe(400);
    expect(JSON.parse(c.answers[0]!.body).error.code).toBe('invalid_http');
    expect(c.answers[0]!.at - finAt).toBeLessThan(500);
  });

  it('refuses a model name with CR, LF, NUL or non-ASCII with 400 and calls no vendor', async () => {
    for (const model of ['gpt-4o-mini\r\nX-Injected: 1', 'gpt-4o-mini\u0000', 'gpt-4o-mini\n', 'openai/gpt-4o-mini\u2028', 'openai/caf\u00e9']) {
      const before = rig.vendor.requests.length;
      const c = await openRaw(port);
      c.socket.write(chatRequest({ key: rig.tenant.api_key, body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }) }));
      await expect.poll(() => c.answers.length).toBe(1);
      expect(c.answers[0]!.status).toBe(400);
      expect(JSON.parse(c.answers[0]!.body).error).toMatchObject({ code: 'invalid_request', param: 'model' });
      expect(rig.vendor.requests.length).toBe(before);
      c.socket.destroy();
    }
  });

  it('refuses JSON nested 5,000 deep with 400 json_too_deep and calls no vendor', async () => {
    const before = rig.vendor.requests.length;
    const deep = `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"x"}],"metadata":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const c = await openRaw(port);
    c.socket.write(chatRequest({ key: rig.tenant.api_key, body: deep }));
    await expect.poll(() => c.answers.length).toBe(1);
    expect(c.answers[0]!.status).toBe(400);
    expect(JSON.parse(c.answers[0]!.body).error.code).toBe('json_too_deep');
    expect(rig.vendor.requests.length).toBe(before);
    c.socket.destroy();
  });
});
