// The master key: from OPTIMIZER_MASTER_KEY, else generated once into the data
// directory (mode 0600) so an embedded first start needs no setup.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

export function loadMasterKey(opts: { fromEnv?: string; dataDir: string; onGenerated?: (path: string) => void }): Buffer {
  if (opts.fromEnv) return Buffer.from(opts.fromEnv, 'base64');
  const path = join(opts.dataDir, 'master.key');
  if (existsSync(path)) {
    const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${path} does not hold a 32-byte base64 key`);
    return key;
  }
  mkdirSync(opts.dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(path, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  opts.onGenerated?.(path);
  return key;
}
