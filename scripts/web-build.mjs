// The web app's build (apps/admin-web/dist), cached between starts: the build is keyed on a hash
// of everything it is made from (the app's own files, the shared schema package it imports, the
// lockfile that pins its tools), stored beside the build, and run again only when that key
// changes or the build is missing. `npm start`, `npm test` and `npm run demo` share it
// (scripts/toolchain.mjs); a second start skips the build's ~6 s.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** What the web build is made from, relative to the repository's root (folders are walked, but never into node_modules or dist). */
export const WEB_BUILD_INPUTS = ['apps/admin-web', 'packages/schema', 'pnpm-lock.yaml'];
const SKIPPED = new Set(['node_modules', 'dist', '.vite']);

/** The build's folder and the file in it that holds the key it was built from. */
export function webBuildPaths(root) {
  const dist = join(root, 'apps', 'admin-web', 'dist');
  return { dist, stamp: join(dist, '.build-key') };
}

function filesUnder(path, out) {
  if (!existsSync(path)) return out;
  let entries;
  try {
    entries = readdirSync(path, { withFileTypes: true });
  } catch {
    out.push(path);
    return out;
  }
  for (const e of entries) {
    if (SKIPPED.has(e.name)) continue;
    const p = join(path, e.name);
    if (e.isDirectory()) filesUnder(p, out);
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/** The hash of the build's inputs: every file's path and content (not its time, so a checkout that leaves the content alone keeps the build). */
export function webBuildKey(root) {
  const hash = createHash('sha256');
  const files = WEB_BUILD_INPUTS.flatMap((input) => filesUnder(join(root, input), [])).map((f) => relative(root, f).split('\\').join('/'));
  for (const file of files.sort()) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** The key the current build was made from, or null when there is no build (or it was made without one). */
export function builtKey(root) {
  const { dist, stamp } = webBuildPaths(root);
  if (!existsSync(join(dist, 'index.html')) || !existsSync(stamp)) return null;
  return readFileSync(stamp, 'utf8').trim();
}

/**
 * Builds the web app unless its build is current. `build` runs the build and resolves with its exit
 * status. Resolves with what happened and the exit status (0 when skipped); a failed build leaves
 * no key, so the next start builds again.
 */
export async function ensureWebBuild(root, build, log = (line) => process.stderr.write(`${line}\n`)) {
  const key = webBuildKey(root);
  const { stamp } = webBuildPaths(root);
  if (builtKey(root) === key) {
    log('[toolchain] the web app is built from its current sources (apps/admin-web/dist): build skipped');
    return { built: false, status: 0 };
  }
  rmSync(stamp, { force: true });
  const status = await build();
  if (status === 0 && existsSync(join(webBuildPaths(root).dist, 'index.html'))) writeFileSync(stamp, `${key}\n`);
  return { built: true, status };
}
