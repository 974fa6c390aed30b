// With no ADMIN_KEY, a first start generates one, prints it once and stores only
// its hash; later starts print nothing and the same key keeps working.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startGateway, testDatabase } from './support/gateway.ts';

describe('the generated admin key', () => {
  it('is announced once on first start, stored hashed, and still works after a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'optimizer-admin-'));
    const database = await testDatabase();
    const first = await startGateway({ dataDir, database, env: { ADMIN_KEY: '' } });
    let key: string;
    try {
      const announced = first.logs.filter((l) => l.startsWith('announced admin key '));
      expect(announced).toHaveLength(1);
      key = announced[0]!.slice('announced admin key '.length);
      expect(key).toMatch(/^sk-admin-/);
      const ok = await fetch(`${first.url}/v1/admin/catalog`, { headers: { authorization: `Bearer ${key}` } });
      expect(ok.status).toBe(200);
      const rows = (await first.services.db.em().getConnection().execute('select hash from admin_keys')) as { hash: string }[];
      expect(rows).toHaveLength(1);
      expect(rows[0]!.hash).not.toContain(key);
    } finally {
      await first.stop();
    }
    const second = await startGateway({ dataDir, database, env: { ADMIN_KEY: '' } });
    try {
      expect(second.logs.filter((l) => l.startsWith('announced admin key '))).toHaveLength(0);
      expect((await fetch(`${second.url}/v1/admin/catalog`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
      expect((await fetch(`${second.url}/v1/admin/catalog`, { headers: { authorization: `Bearer ${key}x` } })).status).toBe(401);
    } finally {
      await second.stop();
      await database.drop();
    }
  });
});
