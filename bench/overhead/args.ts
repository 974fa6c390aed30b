// Command-line options of `node bench/overhead/run.ts`.
import { TARGET_NAMES, type TargetName } from './targets.ts';
import type { LoadName } from './phases.ts';

export const LOAD_NAMES: LoadName[] = ['closed', 'closed-stream', 'open', 'stream'];

export interface Options {
  quick: boolean;
  /** Seconds per measured phase (per load, per target). */
  durationSec: number;
  ratePerSec: number;
  streamRatePerSec: number;
  concurrency: number;
  vendorLatencyMs: number;
  chunkDelayMs: number;
  targets: TargetName[];
  /** Which loads to measure (default all four). */
  loads: LoadName[];
  /** Unmeasured warm-up per target, in seconds. */
  warmupSec: Record<TargetName, number>;
  pin: boolean;
  out: string | undefined;
  databaseUrl: string | undefined;
  /** Directory for a V8 CPU profile of the gateway (node --cpu-prof), written when it stops. */
  gatewayProfileDir: string | undefined;
  /** Start the gateway with `node --perf-basic-prof`, so `perf record -p <pid>` names its JIT frames. */
  gatewayPerfMap: boolean;
  model: string;
}

export const USAGE = `usage: node bench/overhead/run.ts [options]
  --quick                 smoke run (~60 s): 3 s phases, short warm-ups
  --duration S            seconds per phase and target (default 20, quick 3)
  --concurrency N         closed-loop requests in flight (default 32)
  --rate N                open-loop arrivals per second, non-stream (default 300)
  --stream-rate N         open-loop arrivals per second for the stream/TTFB load (default 100)
  --vendor-latency MS     mock delay before each reply (default 0)
  --chunk-delay MS        mock delay between streamed chunks (default 0)
  --targets a,b,c         any of direct,gateway,portkey,bare (default all; direct is always added;
                          bare is a bare node:http forwarding proxy, the floor for any gateway)
  --loads a,b,c           any of closed,closed-stream,open,stream (default all)
  --portkey-warmup S      Portkey warm-up load before measuring (default 30, quick 8)
  --no-pin                do not pin processes to cores
  --out FILE              JSON result path (default bench/results/overhead-<timestamp>.json)
  --database-url URL      run the gateway on this PostgreSQL instead of its embedded PGlite
                          (the embedded database runs inside the gateway's process, so its
                          CPU counts as the gateway's)
  --gateway-profile DIR   write a V8 CPU profile of the gateway (node --cpu-prof) into DIR
  --gateway-perf-map      start the gateway with node --perf-basic-prof (for perf record -p PID)`;

/** A mistake in the command line: reported as its message, without a stack. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export function parseArgs(argv: string[]): Options {
  const flags = new Map<string, string>();
  const bools = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--help' || a === '-h') {
      console.log(USAGE);
      process.exit(0);
    }
    if (!a.startsWith('--')) throw new UsageError(`unexpected argument ${a}\n${USAGE}`);
    const [name, inline] = a.slice(2).split('=', 2) as [string, string | undefined];
    if (name === 'quick' || name === 'no-pin' || name === 'gateway-perf-map') {
      bools.add(name);
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new UsageError(`--${name} needs a value\n${USAGE}`);
    flags.set(name, value);
  }
  const known = ['duration', 'concurrency', 'rate', 'stream-rate', 'vendor-latency', 'chunk-delay', 'targets', 'loads', 'portkey-warmup', 'out', 'database-url', 'gateway-profile'];
  for (const k of flags.keys()) if (!known.includes(k)) throw new UsageError(`unknown option --${k}\n${USAGE}`);
  const quick = bools.has('quick');
  const num = (key: string, fallback: number, min: number): number => {
    const raw = flags.get(key);
    if (raw === undefined) return fallback;
    const v = Number(raw);
    if (!Number.isFinite(v) || v < min) throw new UsageError(`--${key} must be a number ≥ ${min}, got ${raw}`);
    return v;
  };
  /** A comma-separated option naming some of `known` (default all), in `known`'s order. */
  const listOf = <T extends string>(key: string, what: string, known: readonly T[]): T[] => {
    const named = (flags.get(key) ?? known.join(',')).split(',').map((x) => x.trim()).filter(Boolean);
    for (const x of named) if (!known.includes(x as T)) throw new UsageError(`unknown ${what} ${x} (known: ${known.join(', ')})`);
    return known.filter((x) => named.includes(x));
  };
  const targets = listOf('targets', 'target', TARGET_NAMES);
  const picked = TARGET_NAMES.filter((t) => t === 'direct' || targets.includes(t));
  const loads = listOf('loads', 'load', LOAD_NAMES);
  return {
    quick,
    durationSec: num('duration', quick ? 3 : 20, 0.5),
    concurrency: Math.round(num('concurrency', 32, 1)),
    ratePerSec: num('rate', 300, 1),
    streamRatePerSec: num('stream-rate', 100, 1),
    vendorLatencyMs: num('vendor-latency', 0, 0),
    chunkDelayMs: num('chunk-delay', 0, 0),
    targets: picked,
    loads,
    warmupSec: { direct: quick ? 1.5 : 5, bare: quick ? 1.5 : 5, gateway: quick ? 3 : 10, portkey: num('portkey-warmup', quick ? 8 : 30, 0) },
    pin: !bools.has('no-pin'),
    out: flags.get('out'),
    databaseUrl: flags.get('database-url'),
    gatewayProfileDir: flags.get('gateway-profile'),
    gatewayPerfMap: bools.has('gateway-perf-map'),
    model: 'gpt-4o-mini',
  };
}
