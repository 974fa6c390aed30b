// The fault suite's own shared state, never the machine's: a PostgreSQL cluster of its own
// (initdb on a temporary directory, run as the postgres user, its pg_wal on a small tmpfs)
// and a redis-server of its own (append-only file, so a killed Redis comes back with its
// keys), each on a free loopback port, each stopped with the suite. Also the tmpfs mounts
// (a full disk on demand) and a TCP gate that cuts or stalls a connection path.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createClient } from 'redis';
import { fileURLToPath } from 'node:url';
import { freePort, sleep, spawnNode, startGuarded, stopChild, type Child, type Guarded } from '../overhead/procs.ts';


// ---- tmpfs: a disk of a given size that can be filled ----

export interface Tmpfs {
  path: string;
  /** Writes a file until the disk refuses more; returns how many bytes it took. */
  fill(): number;
  /** Removes what fill() wrote. */
  unfill(): void;
  unmount(): void;
}

const mounted = new Set<string>();

/** Mounts a tmpfs of `bytes` on `path` (created), owned by uid:gid, mode 0700. Needs root and a mount that works. */
export function mountTmpfs(path: string, bytes: number, owner?: { uid: number; gid: number }): Tmpfs {
  mkdirSync(path, { recursive: true });
  const opts = [`size=${bytes}`, 'mode=0700', ...(owner ? [`uid=${owner.uid}`, `gid=${owner.gid}`] : [])].join(',');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', opts, 'tmpfs', path], { stdio: 'pipe' });
  } catch (e) {
    throw new Error(`cannot mount a tmpfs on ${path} (the full-disk faults need root and a working mount): ${(e as { stderr?: Buffer }).stderr?.toString().trim() ?? String(e)}`);
  }
  mounted.add(path);
  const filler = join(path, 'fault-filler');
  return {
    path,
    fill() {
      const fd = openSync(filler, 'a');
      const block = Buffer.alloc(64 * 1024, 0x78);
      let total = 0;
      try {
        for (;;) {
          const n = writeSync(fd, block);
          total += n;
          if (n < block.length) {
            // a short write: the disk is nearly full; the next write says so
            if (n === 0) break;
          }
        }
      } catch {
        // ENOSPC: full
      } finally {
        closeSync(fd);
      }
      return total;
    },
    unfill() {
      if (existsSync(filler)) unlinkSync(filler);
    },
    unmount() {
      unmount(path);
    },
  };
}

function unmount(path: string): void {
  if (!mounted.has(path)) return;
  try {
    execFileSync('umount', [path], { stdio: 'pipe' });
  } catch {
    try {
      execFileSync('umount', ['-l', path], { stdio: 'pipe' });
    } catch {
      // nothing more to do
    }
  }
  mounted.delete(path);
}

/** Unmounts every tmpfs this process mounted (the exit path). */
export function unmountAll(): void {
  for (const p of [...mounted]) unmount(p);
}

// ---- PostgreSQL ----

export interface PrivatePostgres {
  /** Admin URL (database `postgres`). */
  adminUrl: string;
  port: number;
  /** The tmpfs holding pg_wal. */
  wal: Tmpfs;
  /** The postgres (postmaster) pid, for the fault's record. */
  pid(): number;
  /** Fast shutdown (every session ended, as `pg_ctl stop -m fast`), then start on the same data and port. */
  restart(downMs?: number): Promise<void>;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Whether it accepts a query now. */
  up(): Promise<boolean>;
  /** Waits until it accepts queries, starting it again if the postmaster exited (a failed crash recovery stops it); whether it restarted it. */
  ensureUp(timeoutMs: number): Promise<boolean>;
  log(): string;
  close(): Promise<void>;
}

function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'postgres'))).sort((a, b) => Number(a) - Number(b)) : [];
  if (!versions.length) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin (apt-get install postgresql)');
  return join(root, versions.at(-1)!, 'bin');
}

function userIds(name: string): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

/** As the postgres user when this process is root (PostgreSQL refuses to run as root). */
function asPostgres(argv: string[]): string[] {
  return process.getuid?.() === 0 ? ['setpriv', '--reuid=postgres', '--regid=postgres', '--init-groups', '--', ...argv] : argv;
}

export async function startPostgres(o: { walBytes: number }): Promise<PrivatePostgres> {
  const bin = postgresBin();
  const root = mkdtempSync(join(tmpdir(), 'faults-pg-'));
  const owner = process.getuid?.() === 0 ? userIds('postgres') : undefined;
  if (owner) chownSync(root, owner.uid, owner.gid);
  chmodSync(root, 0o700);
  const wal = mountTmpfs(join(root, 'wal'), o.walBytes, owner);
  const data = join(root, 'data');
  // 1 MB WAL segments, no recycling: a new segment needs new space, so a full WAL disk is reached within seconds
  const [initdb, ...initArgs] = asPostgres([join(bin, 'initdb'), '-D', data, `--waldir=${join(wal.path, 'pg_wal')}`, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--wal-segsize=1', '--no-sync']);
  execFileSync(initdb!, initArgs, { stdio: 'pipe', cwd: root });
  const port = await freePort();
  const argv = asPostgres([join(bin, 'postgres'), '-D', data, '-p', String(port), '-k', root, '-c', 'listen_addresses=127.0.0.1', '-c', 'wal_recycle=off', '-c', 'min_wal_size=2MB', '-c', 'max_wal_size=4MB', '-c', 'max_connections=200', '-c', 'shared_buffers=32MB']);
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let g: Guarded | undefined;
  const up = async () => {
    const c = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 1000 });
    try {
      await c.connect();
      await c.query('select 1');
      return true;
    } catch {
      return false;
    } finally {
      await c.end().catch(() => {});
    }
  };
  const start = async () => {
    g = await startGuarded('postgres', argv, { stopSignal: 'INT', cwd: root });
    const deadline = Date.now() + 30_000;
    while (!(await up())) {
      if (Date.now() > deadline) throw new Error(`private PostgreSQL did not accept connections:\n${g.child.output()}`);
      await sleep(100);
    }
  };
  const stop = async () => {
    if (g) await stopChild(g.child, 20_000);
    g = undefined;
  };
  await start();
  return {
    adminUrl,
    port,
    wal,
    pid: () => g?.pid ?? 0,
    up,
    start,
    stop,
    async ensureUp(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      let exited = false;
      const child = g?.child;
      if (child) void child.exited.then(() => (exited = true));
      while (Date.now() < deadline) {
        if (await up()) return false;
        if (exited || !g) {
          g = undefined;
          await start();
          return true;
        }
        await sleep(200);
      }
      throw new Error(`private PostgreSQL not back in ${timeoutMs} ms:\n${g?.child.output() ?? ''}`);
    },
    async restart(downMs = 0) {
      await stop();
      await sleep(downMs);
      await start();
    },
    log: () => g?.child.output() ?? '',
    async close() {
      await stop();
      wal.unmount();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

// ---- Redis ----

export interface PrivateRedis {
  url: string;
  port: number;
  /** SIGKILL: the server is gone at once, without a save. */
  kill(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** A redis-server of the suite's own, its keys kept in an append-only file fsynced on every write. */
export async function startRedis(): Promise<PrivateRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'faults-redis-'));
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  const argv = ['redis-server', '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir, '--protected-mode', 'no'];
  let g: Guarded | undefined;
  const start = async () => {
    g = await startGuarded('redis', argv, { stopSignal: 'TERM', cwd: dir });
    const deadline = Date.now() + 20_000;
    for (;;) {
      const c = createClient({ url, socket: { connectTimeout: 500, reconnectStrategy: false } });
      c.on('error', () => {});
      try {
        await c.connect();
        await c.ping();
        await c.quit();
        return;
      } catch {
        await c.disconnect().catch(() => {});
        if (Date.now() > deadline) throw new Error(`private Redis did not answer:\n${g.child.output()}`);
        await sleep(100);
      }
    }
  };
  await start();
  return {
    url,
    port,
    async kill() {
      if (!g) return;
      process.kill(g.pid, 'SIGKILL');
      await g.child.exited;
      g = undefined;
    },
    start,
    async close() {
      if (g) await stopChild(g.child);
      g = undefined;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ---- a gate on a TCP path: open, cut (refuse and drop), stall (hold every byte) ----

/** A TCP relay on 127.0.0.1 in front of `target`, on a fixed port once opened. */
export class Gate {
  port = 0;
  #server: Server | null = null;
  readonly #pairs = new Set<[Socket, Socket]>();
  #stalled = false;
  readonly target: { host: string; port: number };

  constructor(target: { host: string; port: number }) {
    this.target = target;
  }

  get url(): string {
    return `127.0.0.1:${this.port}`;
  }

  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      const pair: [Socket, Socket] = [client, upstream];
      this.#pairs.add(pair);
      for (const s of pair) {
        s.on('error', () => undefined);
        s.on('close', () => {
          this.#pairs.delete(pair);
          client.destroy();
          upstream.destroy();
        });
      }
      if (!this.#stalled) link(pair);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  /** Refuses new connections and drops every open one (a network partition, a dead host). */
  async cut(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    const closed = server ? new Promise((resolve) => server.close(resolve)) : Promise.resolve();
    for (const [a, b] of this.#pairs) {
      a.destroy();
      b.destroy();
    }
    await closed;
  }

  /** Accepts connections but passes no byte either way until resume(): a peer that hangs. */
  stall(): void {
    this.#stalled = true;
    for (const pair of this.#pairs) unlink(pair);
  }

  resume(): void {
    this.#stalled = false;
    for (const pair of this.#pairs) link(pair);
  }

  async close(): Promise<void> {
    await this.cut();
  }
}

function link([a, b]: [Socket, Socket]): void {
  a.pipe(b);
  b.pipe(a);
  a.resume();
  b.resume();
}

function unlink([a, b]: [Socket, Socket]): void {
  a.unpipe(b);
  b.unpipe(a);
  a.pause();
  b.pause();
}

/** A Gate in its own process (gate-child.ts), driven over its stdin. */
export class GateProcess {
  readonly child: Child;
  readonly port: number;
  #out = '';

  private constructor(child: Child, port: number) {
    this.child = child;
    this.port = port;
    child.proc.stdout?.on('data', (b: Buffer) => (this.#out += b.toString('utf8')));
  }

  static async start(target: { host: string; port: number }): Promise<GateProcess> {
    const script = fileURLToPath(new URL('./gate-child.ts', import.meta.url));
    const child = spawnNode('gate', [script, `${target.host}:${target.port}`], { core: undefined, cwd: tmpdir(), env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
    const port = await new Promise<number>((resolve, reject) => {
      let buf = '';
      const timer = setTimeout(() => reject(new Error(`gate did not start:\n${child.output()}`)), 15_000);
      const onData = (b: Buffer) => {
        buf += b.toString('utf8');
        const line = buf.split('\n')[0];
        if (buf.includes('\n') && line) {
          clearTimeout(timer);
          child.proc.stdout?.off('data', onData);
          resolve((JSON.parse(line) as { port: number }).port);
        }
      };
      child.proc.stdout?.on('data', onData);
      void child.exited.then(() => reject(new Error(`gate exited:\n${child.output()}`)));
    });
    return new GateProcess(child, port);
  }

  get url(): string {
    return `127.0.0.1:${this.port}`;
  }

  async #command(cmd: 'cut' | 'open' | 'stall' | 'resume'): Promise<void> {
    const mark = `ok ${cmd}\n`;
    this.#out = '';
    this.child.proc.stdin?.write(`${cmd}\n`);
    const deadline = Date.now() + 10_000;
    while (!this.#out.includes(mark)) {
      if (Date.now() > deadline) throw new Error(`gate did not ${cmd}: ${this.child.output()}`);
      await sleep(10);
    }
  }

  cut(): Promise<void> {
    return this.#command('cut');
  }
  open(): Promise<void> {
    return this.#command('open');
  }
  stall(): Promise<void> {
    return this.#command('stall');
  }
  resume(): Promise<void> {
    return this.#command('resume');
  }

  async close(): Promise<void> {
    this.child.proc.stdin?.end();
    await stopChild(this.child);
  }
}
