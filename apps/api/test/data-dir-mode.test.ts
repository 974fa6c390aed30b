// DATA_DIR and everything in it are owner-only (directories 0700, files 0600) after a
// start, whatever modes a directory that already existed had, and so is what the
// gateway writes while it runs (the embedded database, the metering write-ahead file).
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { authed, signup, startGateway } from './support/gateway.ts';

/** Every path under `dir` (itself included) whose group or other bits are set, with its mode. */
function loose(dir: string): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    const st = lstatSync(p);
    if (st.isSymbolicLink()) return;
    if ((st.mode & 0o077) !== 0) out.push(`${p.slice(dir.length) || '/'} ${(st.mode & 0o777).toString(8)}`);
    if (st.isDirectory()) for (const n of readdirSync(p)) walk(join(p, n));
  };
  walk(dir);
  return out;
}

const parent = mkdtempSync(join(tmpdir(), 'optimizer-mode-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

describe('DATA_DIR modes', () => {
  it('makes an existing 0755 directory and its world-readable files owner-only, and keeps new files so', async () => {
    const before = process.umask(0o022); // a machine's usual umask, whatever earlier tests set
    const dataDir = join(parent, 'data');
    mkdirSync(join(dataDir, 'old-sub'), { recursive: true });
    writeFileSync(join(dataDir, 'old-sub', 'notes.txt'), 'x');
    writeFileSync(join(dataDir, 'left-over.json'), '{}');
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'old-sub'), 0o777);
    chmodSync(join(dataDir, 'old-sub', 'notes.txt'), 0o666);
    chmodSync(join(dataDir, 'left-over.json'), 0o644);
    expect(loose(dataDir).length).toBeGreaterThan(0);

    const gw = await startGateway({ dataDir });
    try {
      // a call writes the metering file and the database's pages
      const t = await signup(gw);
      await fetch(`${gw.url}/v1/agents`, { headers: authed(t.api_key) });
      await gw.services.meter.flush();
      expect(loose(dataDir)).toEqual([]);
      expect(lstatSync(dataDir).mode & 0o777).toBe(0o700);
      expect(lstatSync(join(dataDir, 'old-sub', 'notes.txt')).mode & 0o777).toBe(0o600);
    } finally {
      await gw.close();
      process.umask(before);
    }
  });
});
