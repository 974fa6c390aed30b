// `npm start` a second time does not rebuild the web app: the toolchain keys the web build on a
// hash of its sources, the shared schema package and the lockfile (scripts/web-build.mjs), and
// builds again only when one of them changes or the build is gone. The toolchain script runs as
// `npm start` runs it (the machine's Node, then pnpm), in a copy of the workspace's layout whose
// web app's build script counts its runs, so the real build is never touched.
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webBuildKey } from '../../../scripts/web-build.mjs';

const root = join(import.meta.dirname, '..', '..', '..');
let work: string;

function write(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'web-build-cache-'));
  for (const f of ['toolchain.mjs', 'web-build.mjs']) cpSync(join(root, 'scripts', f), join(work, 'scripts', f));
  symlinkSync(join(root, 'tools'), join(work, 'tools'));
  write(join(work, 'package.json'), JSON.stringify({ name: 'probe', private: true, type: 'module' }));
  write(join(work, 'pnpm-workspace.yaml'), "packages:\n  - 'apps/*'\n  - 'packages/*'\n");
  write(join(work, 'pnpm-lock.yaml'), "lockfileVersion: '9.0'\n");
  write(join(work, 'apps', 'api', 'node-flags.json'), '[]');
  write(join(work, 'node_modules', '.workspace-installed'), new Date().toISOString());
  const app = join(work, 'apps', 'admin-web');
  write(join(app, 'package.json'), JSON.stringify({ name: '@optimizer/admin-web', private: true, type: 'module', scripts: { build: 'node build.mjs' } }));
  // the build: what vite does to dist (emptied, then index.html), and a line per run
  write(
    join(app, 'build.mjs'),
    "import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';\nrmSync('dist', { recursive: true, force: true });\nmkdirSync('dist');\nwriteFileSync('dist/index.html', '<div id=\"root\"></div>');\nappendFileSync('../../builds.log', 'built\\n');\nif (process.env.FAIL_BUILD) process.exit(3);\n",
  );
  write(join(app, 'src', 'main.tsx'), 'export const title = "Optimizer";\n');
  write(join(work, 'packages', 'schema', 'src', 'index.ts'), 'export const version = 1;\n');
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** `npm start`'s first step, as the toolchain runs it: the machine's Node runs the script. */
function buildWeb(env: Record<string, string> = {}): { status: number | null; out: string; builds: number } {
  const r = spawnSync('node', [join(work, 'scripts', 'toolchain.mjs'), 'build:web'], { cwd: work, encoding: 'utf8', env: { HOME: process.env.HOME ?? '/tmp', PATH: '/usr/bin:/bin:/usr/local/bin', ...env } });
  let builds = 0;
  try {
    builds = readFileSync(join(work, 'builds.log'), 'utf8').split('\n').filter(Boolean).length;
  } catch {
    builds = 0;
  }
  return { status: r.status, out: `${r.stdout}${r.stderr}`, builds };
}

describe('the web build between starts', () => {
  it('builds once, skips the build on the next start, and builds again when a source, the schema or the lockfile changes or the build is gone', () => {
    const first = buildWeb();
    expect(first.status, first.out).toBe(0);
    expect(first.builds).toBe(1);

    const second = buildWeb();
    expect(second.status, second.out).toBe(0);
    expect(second.builds).toBe(1);
    expect(second.out).toMatch(/build skipped/);

    // a file rewritten with the same content (a checkout, a touch) keeps the build
    writeFileSync(join(work, 'apps', 'admin-web', 'src', 'main.tsx'), 'export const title = "Optimizer";\n');
    expect(buildWeb().builds).toBe(1);

    const changes: [string, () => void][] = [
      ['a changed source', () => appendFileSync(join(work, 'apps', 'admin-web', 'src', 'main.tsx'), 'export const more = 1;\n')],
      ['a new source', () => write(join(work, 'apps', 'admin-web', 'src', 'extra.ts'), 'export {};\n')],
      ['the schema the app imports', () => appendFileSync(join(work, 'packages', 'schema', 'src', 'index.ts'), 'export const v2 = 2;\n')],
      ['the lockfile', () => appendFileSync(join(work, 'pnpm-lock.yaml'), '# changed\n')],
      ['a removed build', () => rmSync(join(work, 'apps', 'admin-web', 'dist'), { recursive: true })],
    ];
    let expected = 1;
    for (const [what, change] of changes) {
      change();
      // the lockfile is newer than the install marker now: mark the workspace installed again
      write(join(work, 'node_modules', '.workspace-installed'), new Date(Date.now() + 1000).toISOString());
      const rebuilt = buildWeb();
      expected++;
      expect(rebuilt.status, `${what}: ${rebuilt.out}`).toBe(0);
      expect(rebuilt.builds, what).toBe(expected);
      expect(buildWeb().builds, `${what}, started again`).toBe(expected);
    }
  });

  it('a failed build is not kept: the next start builds again', () => {
    appendFileSync(join(work, 'apps', 'admin-web', 'src', 'main.tsx'), 'export const broken = 1;\n');
    const before = buildWeb({ FAIL_BUILD: '1' });
    expect(before.status).toBe(3);
    const after = buildWeb();
    expect(after.status, after.out).toBe(0);
    expect(after.builds).toBe(before.builds + 1);
  });

  it('keys the repository’s own web app on its sources: the same sources, the same key', () => {
    expect(webBuildKey(root)).toMatch(/^[0-9a-f]{64}$/);
    expect(webBuildKey(root)).toBe(webBuildKey(root));
  });
});
