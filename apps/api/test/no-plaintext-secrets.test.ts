// Acceptance: no plaintext tenant key, admin key or provider key is in the
// database, the logs or any response after it was first returned.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed, signup, startGateway, type TestGateway } from './support/gateway.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ env: { LOG_LEVEL: 'trace' } });
});
afterAll(async () => {
  await gw.close();
});

async function dumpDatabase(): Promise<string> {
  const conn = gw.services.db.em().getConnection();
  const tables = (await conn.execute(`select tablename from pg_tables where schemaname = 'public'`)) as { tablename: string }[];
  let out = '';
  for (const { tablename } of tables) {
    const rows = await conn.execute(`select * from "${tablename}"`);
    out += JSON.stringify(rows);
  }
  return out;
}

describe('secrets after they are first shown', () => {
  it('appear in no later response, no log line and no database row', async () => {
    const responses: string[] = [];
    const call = async (path: string, init: RequestInit = {}) => {
      const r = await fetch(`${gw.url}${path}`, init);
      responses.push(await r.text());
      return r;
    };
    const t = await signup(gw);
    const providerKey = `sk-proj-PROVIDERSECRET${Date.now()}`;
    await call('/v1/settings/provider-keys/openai', { method: 'PUT', headers: authed(t.api_key), body: JSON.stringify({ key: providerKey }) });
    await call('/v1/settings/provider-keys', { headers: authed(t.api_key) });
    const agentResp = await fetch(`${gw.url}/v1/agents`, { method: 'POST', headers: authed(t.api_key), body: JSON.stringify({ name: 'a2' }) });
    const agentKey = ((await agentResp.json()) as { api_key: string }).api_key;
    await call('/v1/agents', { headers: authed(agentKey) });
    await call(`/v1/agents/${t.workflow_id}/keys`, { headers: authed(t.api_key) });
    await call('/v1/agents', { headers: { authorization: `Bearer ${t.api_key}x` } });
    await call('/v1/admin/catalog', { headers: { authorization: `Bearer ${gw.adminKey}` } });
    await call('/metrics');

    const secrets = [t.api_key, agentKey, providerKey, gw.adminKey];
    const db = await dumpDatabase();
    const logs = gw.logs.join('\n');
    expect(logs.length).toBeGreaterThan(0);
    for (const s of secrets) {
      expect(db).not.toContain(s);
      expect(logs).not.toContain(s);
      for (const body of responses) expect(body).not.toContain(s);
    }
  });
});
