// Acceptance 4 of issue 19: the README's quick start, its shell blocks run as written (only
// the ports moved to free ones, so it can run beside other tests), ends in a completion
// whose optimizer block shows a non-zero saving. `npm run mocks` and `npm start` run as a
// newcomer runs them, through the machine's npm and the project's toolchain script.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { seedDataDir, testDatabase, type TestDatabase } from '../../../apps/api/test/support/gateway.ts';
import { codeBlocks } from '../../sdk/test/support/readme.ts';

const root = join(import.meta.dirname, '../../..');
const children: ChildProcess[] = [];
let db: TestDatabase | undefined;
let dataDir: string | undefined;

afterAll(async () => {
  // each child leads its own process group (npm → toolchain → node): end that group, by its id
  for (const c of children) if (c.pid !== undefined && c.exitCode === null) process.kill(-c.pid, 'SIGTERM');
  await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null)));
  await db?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/**
 * A base port whose `count` ports from it are all free now, held together while checked. Taken
 * under the ephemeral range (32768 on), where the other tests' servers on port 0 land: one of the
 * mocks' three ports, never checked, was once taken before they bound it.
 */
async function freeRun(count: number): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const base = randomInt(20_000, 32_000);
    const held: Server[] = [];
    try {
      for (let i = 0; i < count; i++) {
        const server = createServer();
        held.push(server);
        await new Promise<void>((ok, fail) => {
          server.once('error', fail);
          server.listen(base + i, '127.0.0.1', ok);
        });
      }
      return base;
    } catch {
      // taken: another run
    } finally {
      await Promise.all(held.map((server) => new Promise((r) => (server.listening ? server.close(r) : r(null)))));
    }
  }
  throw new Error('no run of free ports under 32000');
}

/** Runs a shell block in the background, resolving once its output matches `ready`. */
function background(script: string, env: NodeJS.ProcessEnv, ready: RegExp): Promise<{ out: () => string }> {
  const child = spawn('bash', ['-c', script], { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    const check = () => ready.test(out) && resolve({ out: () => out });
    child.stdout!.on('data', (b: Buffer) => ((out += b.toString()), check()));
    child.stderr!.on('data', (b: Buffer) => ((out += b.toString()), check()));
    child.once('exit', (code) => reject(new Error(`"${script}" exited with ${code} before it was ready:\n${out}`)));
  });
}

function foreground(script: string, env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn('bash', ['-e', '-c', script], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  return new Promise((resolve, reject) => child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}:\n${out}\n${err}`)))));
}

describe('the README quick start', () => {
  it('ends in a completion with a non-zero saving, offline, with the mocks it starts, and the gateway stops on one SIGTERM to npm', async () => {
    const blocks = codeBlocks(join(root, 'README.md'), 'Quick start', 'sh');
    expect(blocks).toHaveLength(3);
    const [mocksBlock, gatewayBlock, clientBlock] = blocks as [string, string, string];
    expect(mocksBlock.trim()).toBe('npm run mocks');

    // the mocks' three ports and the gateway's, in one run checked free; the mocks started again on
    // another run should a port be taken in the moment between the check and their listening
    let base = 0;
    let env: NodeJS.ProcessEnv = {};
    let mocks: { out: () => string } | undefined;
    for (let attempt = 0; !mocks; attempt++) {
      base = await freeRun(4);
      // the machine's Node 20 and npm first, as on a fresh clone
      env = { HOME: process.env.HOME, PATH: `/usr/bin:/bin:/usr/local/bin`, MOCKS_PORT_BASE: String(base) };
      mocks = await background(mocksBlock, env, /GEMINI_API_KEY=.*\n/).catch((e: Error) => {
        if (attempt < 2 && /EADDRINUSE/.test(e.message)) return undefined;
        throw e;
      });
    }
    const gwPort = base + 3;
    const ports = (s: string) => s.replaceAll('9101', String(base)).replaceAll('9102', String(base + 1)).replaceAll('9103', String(base + 2)).replaceAll('8080', String(gwPort));
    // the lines the README exports are the lines the mocks printed
    const printed = mocks.out().split('\n').filter((l) => /^[A-Z_]+=/.test(l)).sort();
    const exported = [...ports(gatewayBlock).matchAll(/([A-Z_]+=\S+)/g)].map((m) => m[1]).sort();
    expect(exported).toEqual(printed);

    db = await testDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'optimizer-quick-start-'));
    if (!db.url) seedDataDir(dataDir);
    const gwEnv = { ...env, PORT: String(gwPort), DATA_DIR: dataDir, ...(db.url ? { DATABASE_URL: db.url, REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' } : {}) };
    const gateway = await background(ports(gatewayBlock), gwEnv, /optimizer gateway ready/);

    const out = await foreground(ports(clientBlock), env);
    const answers = out.split('\n').filter((l) => l.startsWith('{"id"'));
    expect(answers).toHaveLength(2);
    const last = JSON.parse(answers[1]!) as { choices: Array<{ message: { content: string } }>; optimizer: { cache_hit: boolean; baseline_cost: number; actual_cost: number; saving: number } };
    expect(last.choices[0]!.message.content).toMatch(/\S/);
    expect(last.optimizer.cache_hit).toBe(true);
    expect(last.optimizer.saving).toBeGreaterThan(0);
    expect(last.optimizer.saving).toBe(last.optimizer.baseline_cost - last.optimizer.actual_cost);

    // A process manager stops `npm start` with one SIGTERM to npm alone, not to its group: the
    // gateway under it hears it, drains and exits, and leaves nothing behind holding the port.
    const shell = children.at(-1)!;
    const npm = Number((await foreground(`ps -o pid= --ppid ${shell.pid}`, env)).trim());
    expect(npm).toBeGreaterThan(0);
    process.kill(npm, 'SIGTERM');
    await new Promise((r) => (shell.exitCode === null ? shell.once('exit', r) : r(null)));
    expect(gateway.out()).toMatch(/stopped/);
    const alive = () => {
      try {
        return process.kill(-shell.pid!, 0);
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 100 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive()).toBe(false);
    await expect(fetch(`http://127.0.0.1:${gwPort}/healthz`)).rejects.toThrow();
  }, 600_000);
});
