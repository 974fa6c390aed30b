// Interleaved A/B of gateway versions: every tree's gateway runs at once behind one mock,
// all on the server core, loaded at the same time from the generator core, and each
// round compares their CPU per call. Machine drift (which moves sequential phases by
// tens of percent here) hits every version alike, so the ratios hold to a few percent.
//
//   node bench/overhead/ab.ts <tree> <tree> [--secs 10] [--rounds 4] [--concurrency 16] [--stream]
//                             [--database-url URL]
//
// A tree is a checkout of this repository with its dependencies (e.g. a `git worktree`
// whose node_modules link to this one's); the first is the reference.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { makePool, closedLoop } from './load.ts';
import { CLOCK_TICKS, cpuTicks, killAll, pinSelf } from './procs.ts';
import { startMock, type Target } from './targets.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    secs: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '4' },
    concurrency: { type: 'string', default: '16' },
    stream: { type: 'boolean', default: false },
    'database-url': { type: 'string' },
  },
});
const trees = positionals.map((t) => resolve(t));
if (trees.length < 2) {
  console.error('usage: node bench/overhead/ab.ts <tree> <tree> [...] [--secs S] [--rounds N] [--concurrency N] [--stream] [--database-url URL]');
  process.exit(2);
}
const secs = Number(values.secs);
const rounds = Number(values.rounds);
const concurrency = Number(values.concurrency);
const stream = values.stream;
const model = 'gpt-4o-mini';

pinSelf(0);
const opts = { core: 1, vendorLatencyMs: 0, chunkDelayMs: 0, model, databaseUrl: values['database-url'] };
const cleanups: (() => void)[] = [];
try {
  const mock = await startMock(opts);
  const gateways: { tree: string; target: Target }[] = [];
  for (const tree of trees) {
    // each tree starts its own gateway, with its own code (two replicas when they share a database)
    const { startGateway } = (await import(`${tree}/bench/overhead/targets.ts`)) as typeof import('./targets.ts');
    const gw = await startGateway(mock, opts, (fn) => cleanups.push(fn));
    if (gw.unavailable) throw new Error(`${tree}: ${gw.unavailable}`);
    gateways.push({ tree, target: gw.target });
    console.log(`${gateways.length - 1}: ${tree} (pid ${gw.target.proxy?.pid})`);
  }
  const pools = gateways.map((g) => makePool(g.target, { connections: concurrency, timeoutMs: 10_000 }));
  let firstId = 0;
  const round = async (ms: number): Promise<number[]> => {
    const before = gateways.map((g) => cpuTicks(g.target.proxy!.pid));
    const runs = await Promise.all(
      gateways.map((g, i) => closedLoop(pools[i]!, g.target, { concurrency, durationMs: ms, maxRequests: 1e9, drainMs: 5_000, stream, model, firstId: (firstId += 1e8) })),
    );
    return gateways.map((g, i) => (((cpuTicks(g.target.proxy!.pid) - before[i]!) / CLOCK_TICKS) * 1e6) / Math.max(1, runs[i]!.ok));
  };
  await round(10_000); // warm-up, unmeasured
  const ratios = gateways.map(() => [] as number[]);
  for (let r = 1; r <= rounds; r++) {
    const us = await round(secs * 1000);
    us.forEach((u, i) => ratios[i]!.push(u / us[0]!));
    console.log(`round ${r}: ${us.map((u, i) => `${i}: ${u.toFixed(0)} µs/call`).join('   ')}   ratio to 0: ${us.map((u) => (u / us[0]!).toFixed(3)).join(' / ')}`);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`median ratio to 0: ${ratios.map((xs) => median(xs).toFixed(3)).join(' / ')}`);
  for (const p of pools) await p.close();
} finally {
  await killAll();
  for (const fn of cleanups) fn();
}
