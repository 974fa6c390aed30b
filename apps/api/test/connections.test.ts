// Connections (spec 4.5, design §11): stored, listed and deleted, the secret sealed and never
// returned; the base URL refused on write in every local, private and special-purpose form,
// and again at connect time on the address actually connected to (a name that rebinds to
// loopback after the write is refused, nothing sent). Names resolve through a stub resolver;
// every server is a loopback one: nothing here connects anywhere else.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, signup, type TestGateway } from './support/gateway.ts';
import { startLoopback, type Loopback } from './support/loopback.ts';
import { restFor, stubResolver, type Rest } from './support/managed.ts';
import { ApiError } from '../src/errors.ts';

let target: Loopback;
let gw: TestGateway;
let rest: Rest;
let tenant: { api_key: string; account_id: string };
/** Answers a public address when the connection is written, loopback on every later lookup. */
let rebindLookups = 0;
const resolve = stubResolver({
  'api.example.test': ['93.184.215.14'],
  'internal.test': ['10.0.0.5'],
  'mixed.test': ['93.184.215.14', '127.0.0.1'],
  'mapped.test': ['::ffff:127.0.0.1'],
  'nat64.test': ['64:ff9b::a9fe:a9fe'],
  'rebind.test': () => (rebindLookups++ === 0 ? ['93.184.215.14'] : ['127.0.0.1']),
});

beforeAll(async () => {
  target = await startLoopback((_req, res) => res.end('{"ok":true}'));
  gw = await startGateway({ hooks: { resolve } });
  tenant = await signup(gw);
  rest = restFor(gw.url, tenant.api_key);
});
afterAll(async () => {
  await gw.close();
  await target.close();
});

const put = (name: string, base_url: string, secret?: string) => rest(`/v1/connections/${name}`, { method: 'PUT', body: { base_url, ...(secret ? { secret } : {}) } });

describe('connections', () => {
  it('stores, lists, reads and deletes a connection, and never returns its secret', async () => {
    const created = await put('crm', 'https://api.example.test/v2', 'crm-secret-value-1234');
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'crm', base_url: 'https://api.example.test/v2', secret_set: true });
    expect((await put('crm', 'https://api.example.test/v3')).status).toBe(200); // the secret is kept
    const list = await rest('/v1/connections');
    expect(list.body.data).toEqual([expect.objectContaining({ name: 'crm', base_url: 'https://api.example.test/v3', secret_set: true })]);
    expect(JSON.stringify(list.body)).not.toContain('crm-secret-value-1234');
    expect(JSON.stringify((await rest('/v1/connections/crm')).body)).not.toContain('crm-secret-value-1234');
    const [row] = (await gw.services.db.em().getConnection().execute('select secret::text as s from connections where account_id = ?', [tenant.account_id])) as { s: string }[];
    expect(row!.s).not.toContain('crm-secret-value-1234'); // sealed at rest
    expect((await rest('/v1/connections/crm', { method: 'DELETE' })).status).toBe(204);
    expect((await rest('/v1/connections/crm')).status).toBe(404);
    expect((await rest('/v1/connections/crm', { method: 'DELETE' })).status).toBe(404);
  });

  it('keeps each tenant to its own connections', async () => {
    expect((await put('mine', 'https://api.example.test')).status).toBe(201);
    const other = await signup(gw, 'Other');
    const theirs = restFor(gw.url, other.api_key);
    expect((await theirs('/v1/connections')).body.data).toEqual([]);
    expect((await theirs('/v1/connections/mine')).status).toBe(404);
  });

  it('refuses a malformed name or body with 422', async () => {
    expect((await put('Bad Name', 'https://api.example.test')).status).toBe(422);
    expect((await rest('/v1/connections/ok', { method: 'PUT', body: { base_url: 'https://api.example.test', extra: 1 } })).status).toBe(422);
  });
});

describe('the address matrix, refused on write with 422 address_refused and no socket opened', () => {
  const p = () => target.port;
  const forms: [string, () => string][] = [
    ['localhost', () => `http://localhost:${p()}/`],
    ['localhost with a trailing dot, in capitals', () => `http://LOCALHOST.:${p()}/`],
    ['a .localhost name', () => `http://app.localhost:${p()}/`],
    ['a .local name', () => `http://printer.local:${p()}/`],
    ['loopback 127.0.0.1', () => `http://127.0.0.1:${p()}/`],
    ['loopback as a decimal integer 2130706433', () => `http://2130706433:${p()}/`],
    ['loopback in hex 0x7f.1', () => `http://0x7f.1:${p()}/`],
    ['loopback in octal 0177.0.0.1', () => `http://0177.0.0.1:${p()}/`],
    ['loopback shortened 127.1', () => `http://127.1:${p()}/`],
    ['loopback 127.255.255.254', () => `http://127.255.255.254:${p()}/`],
    ['this-network 0.0.0.0 written as 0', () => `http://0:${p()}/`],
    ['private 10/8', () => 'http://10.0.0.1/'],
    ['private 172.16/12', () => 'http://172.16.5.4/'],
    ['private 192.168/16', () => 'http://192.168.1.1/'],
    ['link-local cloud metadata 169.254.169.254', () => 'http://169.254.169.254/latest/meta-data'],
    ['CGNAT 100.64/10', () => 'http://100.64.0.1/'],
    ['benchmarking 198.18/15', () => 'http://198.18.0.1/'],
    ['documentation 192.0.2.0/24', () => 'http://192.0.2.1/'],
    ['IETF protocol assignments 192.0.0.0/24', () => 'http://192.0.0.170/'],
    ['multicast 224/4', () => 'http://224.0.0.1/'],
    ['limited broadcast', () => 'http://255.255.255.255/'],
    ['reserved 240/4', () => 'http://240.0.0.1/'],
    ['IPv6 loopback', () => `http://[::1]:${p()}/`],
    ['IPv6 unspecified', () => `http://[::]:${p()}/`],
    ['IPv4-mapped IPv6 loopback', () => `http://[::ffff:127.0.0.1]:${p()}/`],
    ['IPv4-mapped IPv6 in hex', () => `http://[::ffff:7f00:1]:${p()}/`],
    ['IPv4-mapped IPv6 spelled out', () => `http://[0:0:0:0:0:ffff:7f00:1]:${p()}/`],
    ['IPv4-compatible IPv6', () => `http://[::127.0.0.1]:${p()}/`],
    ['NAT64 of the metadata address', () => 'http://[64:ff9b::a9fe:a9fe]/'],
    ['6to4 of loopback', () => 'http://[2002:7f00:1::]/'],
    ['IPv6 link-local', () => 'http://[fe80::1]/'],
    ['IPv6 unique local', () => 'http://[fd00::1]/'],
    ['IPv6 documentation', () => 'http://[2001:db8::1]/'],
    ['userinfo', () => 'http://user:pass@api.example.test/'],
    ['userinfo hiding a loopback host', () => `http://api.example.test@127.0.0.1:${p()}/`],
    ['a file: URL', () => 'file:///etc/passwd'],
    ['an ftp: URL', () => 'ftp://api.example.test/'],
    ['a gopher: URL', () => `gopher://127.0.0.1:${p()}/`],
    ['a name resolving to a private address', () => 'http://internal.test/'],
    ['a name with one loopback address among public ones', () => `http://mixed.test:${p()}/`],
    ['a name resolving to an IPv4-mapped loopback', () => `http://mapped.test:${p()}/`],
    ['a name resolving to NAT64 of the metadata address', () => 'http://nat64.test/'],
    ['not a URL', () => 'not a url'],
  ];

  it.each(forms)('%s', async (_label, url) => {
    const before = target.connections;
    const r = await put('probe', url());
    expect(r.status).toBe(422);
    expect(r.body.error).toMatchObject({ code: 'address_refused', type: 'invalid_request_error', param: 'base_url' });
    expect(target.connections).toBe(before);
  });

  it('stored nothing for any of them', async () => {
    expect((await rest('/v1/connections/probe')).status).toBe(404);
  });
});

describe('the address connected to, checked again at connect time', () => {
  it('refuses a name that answered a public address on write and loopback at connect time (DNS rebinding), sending nothing', async () => {
    const r = await put('rebind', `http://rebind.test:${target.port}/`, 'rebind-secret-123456');
    expect(r.status).toBe(201); // the write saw the public address
    const before = { connections: target.connections, seen: target.seen.length };
    const err = await gw.services.connections.call(tenant.account_id, 'rebind', { method: 'GET', path: '/x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'address_refused', status: 422 });
    expect(target.connections).toBe(before.connections);
    expect(target.seen.length).toBe(before.seen);
    expect(rebindLookups).toBe(2); // one lookup on write, one (pinned) for the connection
  });

  it('refuses a stored literal that is not public when the connection is called, without connecting', async () => {
    // written before the rules (or by hand): the call checks again
    await gw.services.db.em().getConnection().execute(`update connections set base_url = ? where account_id = ? and name = 'rebind'`, [`http://127.0.0.1:${target.port}/`, tenant.account_id]);
    const before = target.connections;
    await expect(gw.services.connections.call(tenant.account_id, 'rebind', { method: 'GET', path: '/x' })).rejects.toMatchObject({ code: 'address_refused' });
    expect(target.connections).toBe(before);
  });
});
