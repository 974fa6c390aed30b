// Runs the gateway as a real OS process (main.ts), for crash, shutdown and
// multi-replica tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fastPathEnv, generousDoorsEnv, hotStoreEnv, unlistedPriceEnv } from './gateway.ts';
import { NODE_FLAGS } from '../../src/node-flags.ts';

const mainTs = join(import.meta.dirname, '../../src/main.ts');

export interface GatewayProcess {
  url: string;
  proc: ChildProcess;
  output: () => string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  kill(signal: NodeJS.Signals): void;
}

/**
 * The environment several API processes share to act as replicas of one gateway: one
 * database, one Redis, one master key and admin key, one mock vendor as OpenAI.
 */
export function replicaEnv(databaseUrl: string, vendorUrl: string, platformKey: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...hotStoreEnv(databaseUrl),
    OPTIMIZER_MASTER_KEY: randomBytes(32).toString('base64'),
    ADMIN_KEY: `admin-${randomBytes(16).toString('hex')}`,
    OPENAI_BASE_URL: vendorUrl,
    OPENAI_API_KEY: platformKey,
    ...extra,
  };
}

export async function spawnGateway(env: Record<string, string>): Promise<GatewayProcess> {
  const proc = spawn(process.execPath, [...NODE_FLAGS, mainTs], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', ...generousDoorsEnv, ...unlistedPriceEnv, ...fastPathEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  proc.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    // generous: on a loaded 2-CPU machine a start (type stripping, migrations, model load) can take a minute
    const timer = setTimeout(() => reject(new Error(`gateway did not start:\n${out}`)), 120_000);
    const check = () => {
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m && out.includes('optimizer gateway ready')) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    proc.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code} before it was ready:\n${out}`));
    });
  });
  return { url, proc, output: () => out, exited, kill: (s) => proc.kill(s) };
}

export function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) * 1024;
}

/** A process's RSS once it has stopped moving (boot work such as loading models, or a burst's garbage, may still be settling). */
export async function settledRss(pid: number): Promise<number> {
  const samples: number[] = [];
  const until = Date.now() + 20_000;
  for (;;) {
    samples.push(rssBytes(pid));
    const last = samples.slice(-5);
    if (last.length === 5 && Math.max(...last) - Math.min(...last) < 1024 * 1024) return last[4]!;
    if (Date.now() > until) return samples.at(-1)!;
    await new Promise((r) => setTimeout(r, 250));
  }
}
