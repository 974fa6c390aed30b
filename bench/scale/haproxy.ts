// HAProxy from Debian's packages in front of the replicas: installed when missing, started as the
// benchmark's own process on a loopback port with its own config in a temporary directory (never
// the system service), health-checking every replica on GET /readyz.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, sleep, startGuarded, stopChild } from '../overhead/procs.ts';

export const HAPROXY = '/usr/sbin/haproxy';

/** Installs haproxy with apt-get when it is missing; throws with the reason when that fails. */
export function ensureHaproxy(log: (line: string) => void = () => {}): void {
  if (existsSync(HAPROXY)) return;
  log('haproxy missing: apt-get install -y haproxy');
  try {
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'haproxy'], { stdio: 'pipe', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  } catch (e) {
    const err = e as { stderr?: Buffer; message: string };
    throw new Error(`could not install haproxy (apt-get install -y haproxy): ${err.stderr?.toString().slice(-500) ?? err.message}`);
  }
  if (!existsSync(HAPROXY)) throw new Error(`apt-get installed haproxy but ${HAPROXY} is not there`);
}

/** The config: one frontend on `port`, round-robin over `backends` (host:port), health checks on /readyz. */
export function haproxyConfig(port: number, backends: string[]): string {
  const servers = backends.map((b, i) => `    server r${i + 1} ${b} check inter 1s fall 2 rise 1`).join('\n');
  return `global
    nbthread 1
    maxconn 4096

defaults
    mode http
    timeout connect 5s
    timeout client 60s
    timeout server 60s
    timeout http-keep-alive 60s
    option http-keep-alive

frontend gateway
    bind 127.0.0.1:${port}
    # the replicas throttle the doors without a key per client address (TRUST_PROXY): the
    # balancer replaces whatever X-Forwarded-For a client sent with the address it saw
    http-request del-header X-Forwarded-For
    option forwardfor
    default_backend replicas

backend replicas
    balance roundrobin
    option httpchk GET /readyz
    http-check expect status 200
${servers}
`;
}

export interface Balancer {
  origin: string;
  /** The haproxy process itself, for its CPU time. */
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts haproxy in the foreground under a shell that kills it when the benchmark's pipe closes
 * (the benchmark ended, even by SIGKILL), then waits until every backend answers through it.
 */
export async function startBalancer(
  backends: string[],
  readyProbe: (origin: string) => Promise<boolean>,
  /** Another config (the fault suite adds a stats socket and redispatch); haproxyConfig by default. */
  configFor: (port: number, backends: string[]) => string = haproxyConfig,
): Promise<Balancer> {
  ensureHaproxy();
  const dir = mkdtempSync(join(tmpdir(), 'bench-haproxy-'));
  const port = await freePort();
  const cfg = join(dir, 'haproxy.cfg');
  writeFileSync(cfg, configFor(port, backends));
  // haproxy stops when the shell gets SIGTERM (stopChild) and when this process's pipe to the shell's stdin closes
  const { child, pid } = await startGuarded('haproxy', [HAPROXY, '-db', '-f', cfg], { stopSignal: 'TERM', cwd: dir, env: { PATH: '/usr/sbin:/usr/bin:/bin' } });
  const origin = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 20_000;
  // every backend UP: as many consecutive successes as there are backends (round robin)
  let streak = 0;
  while (streak < backends.length * 2) {
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`haproxy did not pass requests to all ${backends.length} replicas:\n${child.output()}`);
    }
    streak = (await readyProbe(origin).catch(() => false)) ? streak + 1 : 0;
    if (streak === 0) await sleep(200);
  }
  return { origin, pid, stop };
}
