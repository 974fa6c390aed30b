// The fault suite at full size (`npm run test:faults`): every scenario of suite.ts in turn on one
// cluster, a table of the faults and their invariants, a JSON record in bench/results/. See
// bench/faults/README.md.
//
//   node bench/faults/run.ts [--small] [--only sigkill,redis-drop] [--replicas 3] [--rate 40]
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { UsageError } from '../overhead/args.ts';
import { killAllNow } from '../overhead/procs.ts';
import { repoRoot } from '../overhead/targets.ts';
import { ensureHaproxy } from '../scale/haproxy.ts';
import { unmountAll } from './env.ts';
import { describeScenario, FaultSuite, FULL, SCENARIOS, SMALL, type ScenarioName, type ScenarioResult, type SuiteOptions } from './suite.ts';

const USAGE = `usage: node bench/faults/run.ts [options]
  --small              the size the test suite runs (2 replicas, 12 req/s, short phases)
  --only a,b           these scenarios only: ${SCENARIOS.join(', ')}
  --replicas N         replicas behind the balancer (default 3; small 2)
  --rate N             requests per second of the load (default 30; small 12)
  --hold MS            how long each fault is held (default 8000; small 3000)`;

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

function parse(argv: string[]): { o: Omit<SuiteOptions, 'log'>; only: ScenarioName[] } {
  const flags = new Map<string, string>();
  let small = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--small') small = true;
    else if (a.startsWith('--') && i + 1 < argv.length) flags.set(a, argv[++i]!);
    else throw new UsageError(`unknown argument ${a}\n${USAGE}`);
  }
  for (const k of flags.keys()) if (!['--only', '--replicas', '--rate', '--hold'].includes(k)) throw new UsageError(`unknown option ${k}\n${USAGE}`);
  const base = { ...(small ? SMALL : FULL) };
  const num = (k: string, d: number, min: number) => {
    const v = flags.get(k);
    if (v === undefined) return d;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new UsageError(`${k} must be a whole number ≥ ${min}`);
    return n;
  };
  base.replicas = num('--replicas', base.replicas, 2);
  base.ratePerSec = num('--rate', base.ratePerSec, 1);
  base.holdMs = num('--hold', base.holdMs, 500);
  const only = (flags.get('--only')?.split(',') ?? [...SCENARIOS]) as ScenarioName[];
  for (const n of only) if (!SCENARIOS.includes(n)) throw new UsageError(`unknown scenario ${n}; one of ${SCENARIOS.join(', ')}`);
  return { o: base, only };
}

export function renderTable(results: ScenarioResult[]): string {
  const lines = ['| fault | invariant | result | measured |', '| --- | --- | --- | --- |'];
  for (const r of results) {
    for (const [i, c] of r.checks.entries()) lines.push(`| ${i === 0 ? `**${r.fault}**: ${describeScenario(r.fault as ScenarioName)}` : ''} | ${c.name} | ${c.pass ? 'pass' : '**FAIL**'} | ${c.detail.replace(/\|/g, '\\|')} |`);
  }
  return lines.join('\n');
}

let suite: FaultSuite | undefined;
let stopping: Promise<void> | undefined;
function shutdown(): Promise<void> {
  stopping ??= (suite?.close() ?? Promise.resolve()).finally(unmountAll);
  return stopping;
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    log(`\n${sig}: stopping`);
    void shutdown().finally(() => process.exit(130));
  });
}
process.on('exit', () => {
  killAllNow();
  unmountAll();
});

async function main(): Promise<number> {
  const { o, only } = parse(process.argv.slice(2));
  ensureHaproxy(log);
  const started = Date.now();
  log(`# Fault suite: ${o.replicas} replicas behind HAProxy, ${o.ratePerSec} req/s, faults held ${o.holdMs} ms`);
  suite = await FaultSuite.start({ ...o, log });
  const results: ScenarioResult[] = [];
  for (const name of only) results.push(await suite.run(name));
  await shutdown();
  const table = renderTable(results);
  log(`\n${table}\n`);
  const failed = results.flatMap((r) => r.checks.filter((c) => !c.pass).map((c) => `${r.fault}: ${c.name}`));
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const file = join(repoRoot, 'bench', 'results', `faults-${stamp}.json`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ benchmark: 'faults', options: o, seconds: (Date.now() - started) / 1000, results }, null, 2)}\n`);
  log(`results: ${file}; ${((Date.now() - started) / 1000).toFixed(0)} s`);
  for (const f of failed) log(`FAIL: ${f}`);
  if (!failed.length) log('PASS');
  return failed.length ? 1 : 0;
}

let status = 0;
try {
  status = await main();
} catch (e) {
  status = e instanceof UsageError ? 2 : 1;
  console.error(e instanceof UsageError ? e.message : `\nfault suite failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
} finally {
  await shutdown();
}
process.exit(status);
