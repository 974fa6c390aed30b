// Gateway replicas as their own processes on the one PostgreSQL database and Redis: one master
// key and admin key between them, each its own DATA_DIR (its write-ahead file), the mock as OpenAI.
import { NODE_FLAGS } from '../../apps/api/src/node-flags.ts';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { freePort, spawnNode, stopChild, waitUntil, type Child } from '../overhead/procs.ts';
import { repoRoot } from '../overhead/targets.ts';

const guard = join(repoRoot, 'bench', 'overhead', 'child-guard.ts');
const mainTs = join(repoRoot, 'apps', 'api', 'src', 'main.ts');

export interface Replica {
  child: Child;
  origin: string;
  hostPort: string;
  stop(): Promise<void>;
}

export interface ClusterEnv {
  databaseUrl: string;
  redisUrl: string;
  vendorUrl: string;
  core: number | undefined;
}

export function clusterSecrets(): Record<string, string> {
  return { OPTIMIZER_MASTER_KEY: randomBytes(32).toString('base64'), ADMIN_KEY: `admin-${randomBytes(16).toString('hex')}` };
}

export async function getStatus(url: string): Promise<number> {
  const res = await request(url, { method: 'GET', headersTimeout: 2000, bodyTimeout: 2000 });
  await res.body.dump();
  return res.statusCode;
}

export async function startReplica(n: number, c: ClusterEnv, secrets: Record<string, string>): Promise<Replica> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), `bench-replica${n}-`));
  const child = spawnNode(`replica ${n}`, [...NODE_FLAGS, '--import', guard, mainTs], {
    core: c.core,
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? tmpdir(),
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      // behind the balancer: the client's address is the one it puts in X-Forwarded-For
      TRUST_PROXY: 'true',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      DATABASE_URL: c.databaseUrl,
      REDIS_URL: c.redisUrl,
      OPENAI_BASE_URL: c.vendorUrl,
      OPENAI_API_KEY: 'sk-bench',
      // the budget reserves each routed call's worst case: a load's calls in flight must not exhaust the default allowance
      BILLING_DEV_ALLOWANCE_USD: '10000',
      ...secrets,
    },
  });
  const origin = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopChild(child);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitUntil(child, 'readiness (GET /readyz 200)', 120_000, async () => (await getStatus(`${origin}/readyz`)) === 200);
  } catch (e) {
    await stop();
    throw e;
  }
  return { child, origin, hostPort: `127.0.0.1:${port}`, stop };
}

/** Adds replicas until there are `n`: the first alone (it migrates the database), the rest at once. */
export async function growTo(replicas: Replica[], n: number, c: ClusterEnv, secrets: Record<string, string>): Promise<void> {
  if (replicas.length === 0 && n > 0) replicas.push(await startReplica(1, c, secrets));
  const more = Array.from({ length: Math.max(0, n - replicas.length) }, (_, i) => startReplica(replicas.length + i + 1, c, secrets));
  replicas.push(...(await Promise.all(more)));
}
