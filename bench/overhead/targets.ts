// Starts the servers under test, each as its own pinned process: the mock vendor, our gateway
// (pointed at the mock) and Portkey's gateway (told the mock is a custom OpenAI host).
import { NODE_FLAGS } from '../../apps/api/src/node-flags.ts';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { bodyMaker, type Endpoint } from './load.ts';
import { freePort, spawnNode, waitUntil, type Child } from './procs.ts';

export type TargetName = 'direct' | 'gateway' | 'portkey' | 'bare';
export const TARGET_NAMES: TargetName[] = ['direct', 'gateway', 'portkey', 'bare'];

export interface Target extends Endpoint {
  name: TargetName;
  /** The proxy's process; none for `direct`. */
  proxy: Child | undefined;
}

export interface ServerOptions {
  /** Core for the servers; undefined leaves them unpinned. */
  core: number | undefined;
  vendorLatencyMs: number;
  chunkDelayMs: number;
  model: string;
  /** Run the gateway on this PostgreSQL instead of its embedded database. */
  databaseUrl?: string | undefined;
  /** Profile the gateway with `node --cpu-prof`, writing into this directory when it stops. */
  gatewayProfileDir?: string | undefined;
  /** Start the gateway with `node --perf-basic-prof` (a /tmp/perf-PID.map for perf). */
  gatewayPerfMap?: boolean | undefined;
  /** More environment for the gateway (e.g. FAST_PATH=off). */
  env?: Record<string, string> | undefined;
}

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = join(here, '..', '..');
const guard = join(here, 'child-guard.ts');

/** A clean environment: nothing from the caller's shell leaks into the servers (no DATABASE_URL, no OPTIMIZER_*). */
function baseEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? tmpdir() };
  return { ...env, ...extra };
}

export interface Mock {
  child: Child;
  url: string;
}

/** Reads the `{"url"}` line a child prints once it listens. */
function announcedUrl(child: Child, name: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${child.output()}`)), 15_000);
    child.proc.stdout?.on('data', (b: Buffer) => {
      buf += b.toString('utf8');
      const line = buf.split('\n')[0];
      if (buf.includes('\n') && line) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { url: string }).url);
      }
    });
    void child.exited.then(() => reject(new Error(`${name} exited:\n${child.output()}`)));
  });
}

export async function startMock(opts: ServerOptions): Promise<Mock> {
  const config = JSON.stringify({ latencyMs: opts.vendorLatencyMs, chunkDelayMs: opts.chunkDelayMs });
  const child = spawnNode('mock', ['--import', guard, join(here, 'mock-child.ts'), config], {
    core: opts.core,
    cwd: repoRoot,
    env: baseEnv({ NODE_ENV: 'production' }),
  });
  return { child, url: await announcedUrl(child, 'mock') };
}

/** The reference floor: a bare node:http forwarding proxy in front of the mock (bare-proxy.ts). */
export async function startBare(mock: Mock, opts: ServerOptions): Promise<Target> {
  const child = spawnNode('bare', ['--import', guard, join(here, 'bare-proxy.ts'), mock.url], {
    core: opts.core,
    cwd: repoRoot,
    env: baseEnv({ NODE_ENV: 'production' }),
  });
  const origin = await announcedUrl(child, 'bare proxy');
  const target: Target = { name: 'bare', origin, path: '/v1/chat/completions', headers: { authorization: 'Bearer sk-bench' }, proxy: child };
  const broken = await probe(target, opts.model);
  if (broken) throw new Error(`the bare proxy does not reach the mock: ${broken}`);
  return target;
}

export function directTarget(mock: Mock): Target {
  const u = new URL(mock.url);
  return { name: 'direct', origin: u.origin, path: `${u.pathname}/chat/completions`, headers: { authorization: 'Bearer sk-bench' }, proxy: undefined };
}

async function getStatus(url: string): Promise<number> {
  const res = await request(url, { method: 'GET', headersTimeout: 2000, bodyTimeout: 2000 });
  await res.body.dump();
  return res.statusCode;
}

/** One non-stream and one stream request through `t`; the error text, or undefined when both answer 200 properly. */
export async function probe(t: Endpoint, model: string): Promise<string | undefined> {
  for (const stream of [false, true]) {
    const res = await request(`${t.origin}${t.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...t.headers },
      body: bodyMaker(model, stream)(0),
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) return `${stream ? 'stream' : 'non-stream'} request answered ${res.statusCode}: ${text.slice(0, 200)}`;
    if (stream ? !text.includes('[DONE]') : !text.includes('"choices"')) return `${stream ? 'stream' : 'non-stream'} reply looks wrong: ${text.slice(0, 200)}`;
  }
  return undefined;
}

export interface Gateway {
  target: Target;
  /** Why the completion route cannot be benchmarked yet (e.g. 404 while it is being built). */
  unavailable: string | undefined;
}

/** `onCleanup` receives the removal of the gateway's temporary DATA_DIR as soon as it exists, so it goes even if the start fails. */
export async function startGateway(mock: Mock, opts: ServerOptions, onCleanup: (fn: () => void) => void): Promise<Gateway> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-gateway-'));
  onCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
  const profile = [
    ...(opts.gatewayProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.gatewayProfileDir}`] : []),
    ...(opts.gatewayPerfMap ? ['--perf-basic-prof'] : []),
  ];
  const child = spawnNode('gateway', [...profile, ...NODE_FLAGS, '--import', guard, join(repoRoot, 'apps', 'api', 'src', 'main.ts')], {
    core: opts.core,
    cwd: repoRoot,
    env: baseEnv({
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      OPENAI_BASE_URL: mock.url,
      OPENAI_API_KEY: 'sk-bench',
      NODE_ENV: 'production',
      ...(opts.databaseUrl ? { DATABASE_URL: opts.databaseUrl } : {}),
      ...opts.env,
    }),
  });
  const origin = `http://127.0.0.1:${port}`;
  await waitUntil(child, 'readiness (GET /readyz 200)', 90_000, async () => (await getStatus(`${origin}/readyz`)) === 200);
  const signup = await request(`${origin}/v1/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    // A fresh address per run: the gateway may share its database with earlier runs (DATABASE_URL).
    body: JSON.stringify({ company: 'bench', email: `bench-${randomUUID().slice(0, 8)}@example.com` }),
  });
  const text = await signup.body.text();
  if (signup.statusCode !== 201 && signup.statusCode !== 200) throw new Error(`gateway signup answered ${signup.statusCode}: ${text}`);
  const apiKey = (JSON.parse(text) as { api_key?: string }).api_key;
  if (!apiKey) throw new Error(`gateway signup returned no api_key: ${text}`);
  const target: Target = { name: 'gateway', origin, path: '/v1/chat/completions', headers: { authorization: `Bearer ${apiKey}` }, proxy: child };
  const unavailable = await probe(target, opts.model).catch((e: Error) => e.message);
  return { target, unavailable };
}

export async function startPortkey(mock: Mock, opts: ServerOptions): Promise<Target> {
  const require = createRequire(import.meta.url);
  const pkgDir = dirname(require.resolve('@portkey-ai/gateway/package.json'));
  const port = await freePort();
  const child = spawnNode(
    'portkey',
    ['--import', guard, '--import', join(here, 'bind-loopback.ts'), join(pkgDir, 'build', 'start-server.js'), `--port=${port}`, '--headless'],
    { core: opts.core, cwd: pkgDir, env: baseEnv({ NODE_ENV: 'production' }) },
  );
  const origin = `http://127.0.0.1:${port}`;
  await waitUntil(child, 'readiness (GET / 200)', 30_000, async () => (await getStatus(`${origin}/`)) === 200);
  const target: Target = {
    name: 'portkey',
    origin,
    path: '/v1/chat/completions',
    headers: { authorization: 'Bearer sk-bench', 'x-portkey-provider': 'openai', 'x-portkey-custom-host': mock.url },
    proxy: child,
  };
  const broken = await probe(target, opts.model);
  if (broken) throw new Error(`Portkey does not proxy to the mock: ${broken}`);
  return target;
}
