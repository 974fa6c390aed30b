// One data directory belongs to one process: the embedded database and the metering
// write-ahead file are not shareable. A lock file names the owner; a lock left by a
// process that no longer runs (killed) is taken over.
import { readFileSync, writeFileSync, unlinkSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the directory's lock, or throws naming the process that holds it. Returns the release. */
export function lockDataDir(dir: string): () => void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, 'gateway.lock');
  for (let tries = 0; tries < 2; tries++) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx', mode: 0o600 });
      return () => {
        try {
          if (readFileSync(path, 'utf8') === String(process.pid)) unlinkSync(path);
        } catch {
          /* already gone */
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const owner = Number(readFileSync(path, 'utf8'));
      if (owner && owner !== process.pid && alive(owner)) {
        throw new Error(`DATA_DIR ${dir} is in use by process ${owner}; give each gateway process its own DATA_DIR`);
      }
      unlinkSync(path); // left by a process that is gone
    }
  }
  throw new Error(`could not lock DATA_DIR ${dir}`);
}
