// Child processes pinned to a core, their CPU time from /proc, and killing them all on the way out.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { coreBusyShare, parseProcStatTicks } from './stats.ts';

export interface Child {
  name: string;
  pid: number;
  proc: ChildProcess;
  /** Last lines of stdout+stderr, for error messages. */
  output(): string;
  exited: Promise<number | null>;
}

const children = new Set<Child>();

export const CLOCK_TICKS: number = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

export function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Pins this process (the load generator) to `core`. */
export function pinSelf(core: number): void {
  execFileSync('taskset', ['-cp', String(core), String(process.pid)], { stdio: 'ignore' });
}

export interface SpawnOptions {
  /** Core to pin to with `taskset -c`; undefined runs unpinned. */
  core: number | undefined;
  env: Record<string, string>;
  cwd: string;
}

/**
 * Starts `node args…` as its own process (taskset execs node, so the pid is node's). stdin stays an
 * open pipe: the child-guard preload ends the child when it closes, i.e. when this process dies.
 */
export function spawnNode(name: string, args: string[], opts: SpawnOptions): Child {
  const cmd = opts.core === undefined ? process.execPath : 'taskset';
  const argv = opts.core === undefined ? args : ['-c', String(opts.core), process.execPath, ...args];
  return spawnChild(name, cmd, argv, opts);
}

/** Starts any program as a tracked child (stopped by killAll / killAllNow), stdin an open pipe. */
export function spawnChild(name: string, cmd: string, argv: string[], opts: Omit<SpawnOptions, 'core'>): Child {
  const proc = spawn(cmd, argv, { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'] });
  if (proc.pid === undefined) throw new Error(`could not start ${name}`);
  let tail = '';
  const keep = (b: Buffer) => {
    tail = (tail + b.toString('utf8')).slice(-4000);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const child: Child = { name, pid: proc.pid, proc, output: () => tail, exited };
  children.add(child);
  void exited.then(() => children.delete(child));
  return child;
}

/** Stops one child: SIGTERM, then SIGKILL after `graceMs`. */
export async function stopChild(c: Child, graceMs = 3000): Promise<void> {
  signal(c, 'SIGTERM');
  await Promise.race([c.exited, sleep(graceMs)]);
  if (children.has(c)) signal(c, 'SIGKILL');
  await c.exited;
}

/** Sends SIGTERM to every child, then SIGKILL to those still there after `graceMs`. */
export async function killAll(graceMs = 3000): Promise<void> {
  const all = [...children];
  for (const c of all) signal(c, 'SIGTERM');
  await Promise.race([Promise.all(all.map((c) => c.exited)), sleep(graceMs)]);
  for (const c of children) signal(c, 'SIGKILL');
}

/** Last resort on process exit: synchronous SIGKILL of whatever is left. */
export function killAllNow(): void {
  for (const c of children) signal(c, 'SIGKILL');
}

function signal(c: Child, sig: NodeJS.Signals): void {
  try {
    c.proc.kill(sig);
  } catch {
    // already gone
  }
}

/** utime + stime of a process so far, in clock ticks (all threads). */
export function cpuTicks(pid: number): number {
  return parseProcStatTicks(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/**
 * utime + stime of a process's main thread so far, in clock ticks: the thread that serves calls
 * (the gateway's event loop), without its helper threads (the embedded database's, GC, the pool).
 */
export function servingThreadTicks(pid: number): number {
  return parseProcStatTicks(readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8'));
}

/** The `cpuN` line of /proc/stat. */
export function coreStatLine(core: number): string {
  const line = readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`cpu${core} `));
  return line ?? '';
}

export { coreBusyShare };

/**
 * Waits until the processes are quiet (at most `maxTicks` of CPU between them over a `windowMs`
 * window), so work a phase deferred (batched writes, GC) is counted in that phase and not in the
 * next one. Gives up after `maxMs`; returns how long it waited.
 */
export async function settleProcesses(pids: number[], windowMs = 300, maxTicks = 1, maxMs = 15_000): Promise<number> {
  const start = Date.now();
  const total = () => pids.reduce((sum, pid) => sum + cpuTicks(pid), 0);
  let last = total();
  while (Date.now() - start < maxMs) {
    await sleep(windowMs);
    const now = total();
    if (now - last <= maxTicks) break;
    last = now;
  }
  return Date.now() - start;
}

/** Waits (at most `maxMs`) until `core` is less than `maxBusy` busy over a window; returns the last busy share seen. */
export async function waitForQuietCore(core: number, maxBusy = 0.1, windowMs = 300, maxMs = 10_000): Promise<number> {
  const start = Date.now();
  let busy = 1;
  while (Date.now() - start < maxMs) {
    const before = coreStatLine(core);
    await sleep(windowMs);
    busy = coreBusyShare(before, coreStatLine(core));
    if (!(busy >= maxBusy)) break;
  }
  return busy;
}

/** A currently free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `probe` until it returns true, the child exits, or `timeoutMs` passes. */
export async function waitUntil(child: Child, what: string, timeoutMs: number, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let gone = false;
  void child.exited.then(() => (gone = true));
  while (Date.now() < deadline) {
    if (gone) throw new Error(`${child.name} exited before ${what}:\n${child.output()}`);
    if (await probe().catch(() => false)) return;
    await sleep(100);
  }
  throw new Error(`${child.name}: no ${what} within ${timeoutMs} ms:\n${child.output()}`);
}

/** A program started under a shell that stops it when this process's pipe closes (even after SIGKILL); `pid` is the program's. */
export interface Guarded {
  child: Child;
  pid: number;
}

/**
 * Starts `argv` in the background of a shell (a watcher reads this process's pipe as fd 3: an
 * asynchronous list's own stdin is /dev/null) that prints its pid, forwards SIGTERM to it as
 * `stopSignal`, and sends it that signal when this process's pipe to the shell's stdin closes.
 */
export async function startGuarded(name: string, argv: string[], opts: { stopSignal: 'TERM' | 'INT'; cwd: string; env?: Record<string, string> }): Promise<Guarded> {
  const script = [
    'exec 3<&0',
    // the program writes to stderr: stdout carries the pid alone (a program's first log line could come before it)
    '"$@" </dev/null >&2 & pid=$!',
    'echo "$pid"',
    `(read _ignored <&3; kill -${opts.stopSignal} "$pid" 2>/dev/null) &`,
    `trap 'kill -${opts.stopSignal} "$pid" 2>/dev/null' TERM INT HUP`,
    'wait "$pid"; wait "$pid"',
  ].join('\n');
  const child = spawnChild(name, 'sh', ['-c', script, 'sh', ...argv], { cwd: opts.cwd, env: opts.env ?? { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' } });
  const pid = await firstLineNumber(child, name);
  return { child, pid };
}

/** The number a wrapper script prints on its first line of stdout (the pid it started; the program itself writes to stderr), within 10 s. */
function firstLineNumber(child: Child, name: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${child.output()}`)), 10_000);
    child.proc.stdout?.on('data', (b: Buffer) => {
      buf += b.toString('utf8');
      const m = /^(\d+)\n/.exec(buf);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    void child.exited.then(() => reject(new Error(`${name} exited:\n${child.output()}`)));
  });
}
