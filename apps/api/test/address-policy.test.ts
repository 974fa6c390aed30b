// The public-only address policy (design §11): a host name is resolved and refused if
// any of its addresses is not public, before any connection; an address literal is
// checked before connecting; the socket connects to the address that was checked, and
// the connected socket is checked again. Names resolve through a stub resolver, and
// every server is on 127.0.0.1: nothing here connects anywhere else.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Http1Client, type ResponseHandler } from '../src/providers/http1-client.ts';
import { BlockedAddressError, Outbound, publicOnly, type Resolver } from '../src/providers/outbound.ts';
import { authed, signup, startGateway } from './support/gateway.ts';
import { startLoopback, type Loopback } from './support/loopback.ts';

/** A resolver that knows a few made-up names and asks nobody else. */
const names: Record<string, string[]> = {
  'vendor.test': ['127.0.0.1'],
  // a public-looking address first and a loopback one after: refused as a whole, nothing connected
  'mixed.test': ['198.51.100.7', '127.0.0.1'],
  'mapped.test': ['::ffff:127.0.0.1'],
};
const stub: Resolver = async (host) => {
  const found = names[host];
  if (!found) throw Object.assign(new Error(`stub resolver: no ${host}`), { code: 'ENOTFOUND' });
  return found;
};

let vendor: Loopback;
beforeAll(async () => {
  vendor = await startLoopback((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'c1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }));
  });
});
afterAll(async () => {
  await vendor.close();
});

describe('the outbound module', () => {
  const outbound = new Outbound({ resolve: stub, connectMs: 1_000 });
  afterAll(() => outbound.close());
  const get = (host: string, policy: 'any' | 'public-only') => outbound.request({ url: new URL(`http://${host}:${vendor.port}/v1/models`), method: 'GET', headers: {}, policy });

  it('connects to the resolved (pinned) address under the any policy, naming the host it was asked for', async () => {
    const r = await get('vendor.test', 'any');
    await r.body.text();
    expect(r.statusCode).toBe(200);
    expect(vendor.seen.at(-1)!.headers.host).toBe(`vendor.test:${vendor.port}`);
  });

  it.each(['vendor.test', 'mixed.test', 'mapped.test', '127.0.0.1', '[::1]', '[::ffff:7f00:1]', 'unknown.test'])('refuses %s under public-only without connecting', async (host) => {
    const before = vendor.connections;
    const err = await get(host, 'public-only').catch((e: unknown) => e);
    if (host === 'unknown.test') expect(err).toMatchObject({ code: 'ENOTFOUND' });
    else expect(err).toBeInstanceOf(BlockedAddressError);
    expect(vendor.connections).toBe(before);
  });

  it('checks the socket actually connected to, whatever a lookup said', async () => {
    // a lookup that claims nothing and hands over a loopback address: only the connected-socket check stands
    const client = new Http1Client({
      timeouts: { connectMs: 1_000, firstByteMs: 1_000, idleMs: 1_000, keepAliveMs: 1_000 },
      maxConnections: 1,
      maxResponseBytes: 1024,
      check: publicOnly,
      lookup: (_host, options, cb) => (options.all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4)),
    });
    const seen = vendor.seen.length;
    const err = await new Promise<Error>((resolve) => {
      const handler: ResponseHandler = { onHeaders: () => undefined, onData: () => undefined, onComplete: () => resolve(new Error('answered')), onError: resolve };
      client.request(new URL(`http://rebind.test:${vendor.port}/v1/x`), { method: 'GET', headers: {}, body: undefined }, handler);
    });
    expect(err).toBeInstanceOf(BlockedAddressError);
    expect(vendor.seen.length).toBe(seen); // connected, checked, and nothing was sent
    await client.close();
  });
});

describe('admin-registered providers under CUSTOM_PROVIDER_ADDRESS_POLICY', () => {
  async function gatewayWith(policy: 'any' | 'public-only') {
    const gw = await startGateway({ env: { CUSTOM_PROVIDER_ADDRESS_POLICY: policy, UPSTREAM_MAX_RETRIES: '0' }, hooks: { resolve: stub } });
    const put = await fetch(`${gw.url}/v1/admin/providers/acme`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${gw.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ base_url: `http://vendor.test:${vendor.port}/v1`, api_key: 'sk-acme-key-123456', enabled: true }),
    });
    expect(put.status).toBe(200);
    const tenant = await signup(gw);
    const chat = () => fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(tenant.api_key), body: JSON.stringify({ model: 'acme/m', messages: [{ role: 'user', content: 'hi' }] }) });
    return { gw, chat };
  }

  it('reaches a provider on a private address by default (a self-hosted model)', async () => {
    const { gw, chat } = await gatewayWith('any');
    try {
      expect((await chat()).status).toBe(200);
    } finally {
      await gw.close();
    }
  });

  it('refuses it under public-only with 400 provider_unavailable, before connecting, on calls and on the provider test', async () => {
    const { gw, chat } = await gatewayWith('public-only');
    try {
      const before = vendor.connections;
      const r = await chat();
      expect(r.status).toBe(400);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe('provider_unavailable');
      const t = (await (await fetch(`${gw.url}/v1/admin/providers/acme/test`, { method: 'POST', headers: { authorization: `Bearer ${gw.adminKey}` } })).json()) as { ok: boolean; error: string };
      expect(t).toMatchObject({ ok: false, error: 'acme could not be reached (ERR_BLOCKED_ADDRESS).' });
      expect(vendor.connections).toBe(before);
    } finally {
      await gw.close();
    }
  });
});
