// The cluster the faults hit: gateway replicas (each on a fixed port and its own DATA_DIR, so a
// killed one restarts where it was and replays its write-ahead file; that file on a small tmpfs
// of its own; Redis reached through a gate of its own, so one replica can lose Redis alone) on the
// suite's PostgreSQL and Redis, the mock vendor behind a gate that can stall, and HAProxy in
// front (bench/scale's, with a stats socket, redispatch on a refused connection, and the serving
// replica named in an `x-served-by` header).
import { NODE_FLAGS } from '../../apps/api/src/node-flags.ts';
import { randomBytes } from 'node:crypto';
import { createConnection } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { freePort, sleep, spawnNode, stopChild, type Child } from '../overhead/procs.ts';
import { repoRoot } from '../overhead/targets.ts';
import { haproxyConfig, startBalancer, type Balancer } from '../scale/haproxy.ts';
import { GateProcess, mountTmpfs, type Tmpfs } from './env.ts';

const guard = join(repoRoot, 'bench', 'overhead', 'child-guard.ts');
const mainTs = join(repoRoot, 'apps', 'api', 'src', 'main.ts');

/** What every replica is started with beyond its own port and directory. */
export interface ReplicaSettings {
  databaseUrl: string;
  redis: { host: string; port: number };
  vendorUrl: string;
  secrets: Record<string, string>;
  /** Bytes of the tmpfs under each replica's write-ahead file. */
  walBytes: number;
  /** Extra environment (timeouts, flush period). */
  env: Record<string, string>;
}

export class Replica {
  readonly name: string;
  readonly port: number;
  readonly dataDir: string;
  readonly wal: Tmpfs;
  readonly redisGate: GateProcess;
  readonly #settings: ReplicaSettings;
  child: Child | undefined;
  /** Its process is alive (started and not exited). */
  running = false;

  private constructor(name: string, port: number, dataDir: string, wal: Tmpfs, redisGate: GateProcess, settings: ReplicaSettings) {
    this.name = name;
    this.port = port;
    this.dataDir = dataDir;
    this.wal = wal;
    this.redisGate = redisGate;
    this.#settings = settings;
  }

  static async create(name: string, settings: ReplicaSettings): Promise<Replica> {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), `faults-${name}-`));
    mkdirSync(join(dataDir, 'wal'), { mode: 0o700 });
    const wal = mountTmpfs(join(dataDir, 'wal'), settings.walBytes);
    const redisGate = await GateProcess.start(settings.redis);
    return new Replica(name, port, dataDir, wal, redisGate, settings);
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get hostPort(): string {
    return `127.0.0.1:${this.port}`;
  }

  get pid(): number {
    return this.child?.pid ?? 0;
  }

  /** Starts the gateway on this replica's port and directory; resolves once /readyz answers 200. */
  async start(): Promise<void> {
    const s = this.#settings;
    this.child = spawnNode(this.name, [...NODE_FLAGS, '--import', guard, mainTs], {
      core: undefined,
      cwd: repoRoot,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? tmpdir(),
        NODE_ENV: 'production',
        PORT: String(this.port),
        HOST: '127.0.0.1',
        DATA_DIR: this.dataDir,
        LOG_LEVEL: 'warn',
        DATABASE_URL: s.databaseUrl,
        REDIS_URL: `redis://${this.redisGate.url}`,
        OPENAI_BASE_URL: s.vendorUrl,
        OPENAI_API_KEY: 'sk-faults',
        BILLING_DEV_ALLOWANCE_USD: '10000',
        ...s.env,
        ...s.secrets,
      },
    });
    const child = this.child;
    this.running = true;
    void child.exited.then(() => {
      if (this.child === child) this.running = false;
    });
    const deadline = Date.now() + 120_000;
    let gone = false;
    void child.exited.then(() => (gone = true));
    while ((await readyz(this.origin).catch(() => 0)) !== 200) {
      if (gone) throw new Error(`${this.name} exited before it was ready:\n${child.output()}`);
      if (Date.now() > deadline) throw new Error(`${this.name} not ready in 120 s:\n${child.output()}`);
      await sleep(100);
    }
  }

  /** Sends a signal to the gateway process. */
  signal(sig: NodeJS.Signals): void {
    this.child?.proc.kill(sig);
  }

  async exited(): Promise<number | null> {
    return this.child ? this.child.exited : null;
  }

  async stop(): Promise<void> {
    if (this.child) await stopChild(this.child, 10_000);
  }

  async close(): Promise<void> {
    await this.stop();
    await this.redisGate.close();
    this.wal.unmount();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

export async function readyz(origin: string): Promise<number> {
  return (await readyzAnswer(origin)).status;
}

/** /readyz's status and body (which dependency it finds down). */
async function readyzAnswer(origin: string): Promise<{ status: number; body: string }> {
  const res = await request(`${origin}/readyz`, { method: 'GET', headersTimeout: 3000, bodyTimeout: 3000 });
  return { status: res.statusCode, body: await res.body.text() };
}

/** What a replica's /readyz says and the last lines it logged: why the balancer holds it out. */
export async function whyDown(replica: Replica): Promise<string> {
  const body = await readyzAnswer(replica.origin).then(
    (a) => `${a.status} ${a.body}`,
    (err: Error) => `no answer (${err.message})`,
  );
  const log = (replica.child?.output() ?? '').trim().split('\n').slice(-8).join('\n');
  return `${replica.name}: /readyz ${body}${replica.running ? '' : ' (not running)'}${log ? `\n${log}` : ''}`;
}

export function clusterSecrets(): Record<string, string> {
  return { OPTIMIZER_MASTER_KEY: randomBytes(32).toString('base64'), ADMIN_KEY: `admin-${randomBytes(16).toString('hex')}` };
}

// ---- the balancer ----

export interface FaultBalancer extends Balancer {
  statsSocket: string;
}

/** bench/scale's HAProxy config plus a stats socket, redispatch of a refused connection to another replica, and x-served-by. */
export function faultConfig(statsSocket: string): (port: number, backends: string[]) => string {
  return (port, backends) =>
    haproxyConfig(port, backends)
      .replace('global\n', `global\n    stats socket ${statsSocket} mode 600 level admin\n`)
      // a check answers within 3 s (readiness pings PostgreSQL and Redis, up to 2 s each, on a loaded machine)
      .replace('defaults\n', 'defaults\n    retries 3\n    option redispatch 1\n    timeout check 3s\n')
      .replace('backend replicas\n', 'backend replicas\n    http-response set-header x-served-by %s\n');
}

export async function startFaultBalancer(replicas: Replica[]): Promise<FaultBalancer> {
  const dir = mkdtempSync(join(tmpdir(), 'faults-haproxy-'));
  const statsSocket = join(dir, 'stats.sock');
  const b = await startBalancer(
    replicas.map((r) => r.hostPort),
    async (origin) => (await readyz(origin)) === 200,
    faultConfig(statsSocket),
  );
  return {
    ...b,
    statsSocket,
    async stop() {
      await b.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One command on HAProxy's stats socket; its answer. */
export function haproxyCommand(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = createConnection(socket);
    let out = '';
    c.setTimeout(3000, () => c.destroy(new Error('stats socket timed out')));
    c.on('connect', () => c.end(`${command}\n`));
    c.on('data', (b) => (out += b.toString('utf8')));
    c.on('end', () => resolve(out));
    c.on('error', reject);
  });
}

/** Each replica's state as the balancer sees it: `UP`, `DOWN`, `UP 1/2`… (from `show stat`). */
export async function serverStates(socket: string): Promise<Record<string, string>> {
  const csv = await haproxyCommand(socket, 'show stat');
  const [header, ...rows] = csv.split('\n').filter(Boolean);
  const cols = header!.replace(/^# /, '').split(',');
  const px = cols.indexOf('pxname');
  const sv = cols.indexOf('svname');
  const st = cols.indexOf('status');
  const states: Record<string, string> = {};
  for (const row of rows) {
    const f = row.split(',');
    if (f[px] === 'replicas' && f[sv] !== 'BACKEND') states[f[sv]!] = f[st]!;
  }
  return states;
}

/** Polls the balancer until `name` is in a state `want` matches; how long that took (ms), or -1 after `timeoutMs`. */
export async function waitForState(socket: string, name: string, want: RegExp, timeoutMs: number): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < timeoutMs) {
    const s = (await serverStates(socket).catch(() => ({}) as Record<string, string>))[name];
    if (s !== undefined && want.test(s)) return Date.now() - start;
    await sleep(100);
  }
  return -1;
}
