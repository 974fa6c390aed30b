// DATA_DIR holds the embedded database, the metering write-ahead file and, on a first
// start, the master key: nobody but the gateway's user may read or change any of it,
// whatever modes a directory that already existed had. The process's umask makes what
// is created from now on owner-only (the embedded database creates files 0666 and
// relies on it), and the tree that is already there is brought to 0700 / 0600.
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/** Makes new files owner-only for this process (a no-op where the umask cannot be set, e.g. a worker thread). */
export function ownerOnlyUmask(): void {
  try {
    process.umask(0o077);
  } catch {
    /* worker threads share the process's umask and may not set it */
  }
}

/** Creates `dir` if needed and makes it and everything under it owner-only; symbolic links are left alone. */
export function ownerOnlyTree(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  const walk = (path: string): void => {
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (!st || st.isSymbolicLink()) return;
    if (st.isDirectory()) {
      if ((st.mode & 0o777) !== DIR_MODE) chmodSync(path, DIR_MODE);
      for (const name of readdirSync(path)) walk(join(path, name));
    } else if ((st.mode & 0o077) !== 0 || (st.mode & 0o600) !== FILE_MODE) {
      chmodSync(path, (st.mode & 0o700) | FILE_MODE);
    }
  };
  walk(dir);
}
