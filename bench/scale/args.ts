// Command-line options of `node bench/scale/run.ts`.
import { UsageError } from '../overhead/args.ts';
import type { LoadMode } from './rounds.ts';

export interface ScaleOptions {
  soak: boolean;
  quick: boolean;
  replicas: number[];
  ratePerSec: number;
  durationSec: number;
  warmupSec: number;
  throughputSec: number;
  concurrency: number;
  redisDb: number;
  pgAdminUrl: string;
  redisUrl: string;
  pin: boolean;
  /** Cycles of alternating rounds (1,2,4,4,2,1); 0 runs the counts once each, in ascending order, replicas added as it goes. */
  cycles: number;
  /** Seconds of unloaded wait before and after each round's load. */
  idleSec: number;
  /** Also one replica at the rate each of N replicas sees (fixed) or at N replicas' total (scaled), for every N > 1. */
  solo: boolean;
  /** scaled: N replicas take N × --rate (scale-out); fixed: every count takes --rate. */
  load: LoadMode;
}

export const USAGE = `usage: node bench/scale/run.ts [options]
  --soak               the soak instead: 2 replicas, mixed traffic, RSS and fds sampled
  --quick              short phases (a smoke run)
  --replicas 1,2,4     replica counts to measure (default 1,2,4)
  --load scaled|fixed  scaled (default): N replicas take N × --rate, each the load one replica
                       takes (what scale-out costs); fixed: every count takes --rate in all
  --rate N             open-loop arrivals per second: one replica's (scaled, default 50), all
                       replicas' (fixed, default 200; soak 150)
  --duration S         measured seconds per replica count (default 20; soak 60)
  --warmup S           unmeasured load first (default 15; soak 60)
  --throughput S       closed-loop seconds for max throughput (default 5; 0 skips)
  --concurrency N      closed-loop requests in flight (default 32)
  --redis-db N         the Redis db index the run owns (default 13; flushed at start and end)
  --pg URL             PostgreSQL admin URL (default postgres://postgres@127.0.0.1:5432/postgres)
  --redis URL          Redis URL (default redis://127.0.0.1:6379)
  --cycles N           cycles of rounds in alternating order 1,2,4,4,2,1 (default 2; 0: each count
                       once, ascending, replicas added between steps as before)
  --solo               each cycle also runs one replica at the load of N: fixed, rate/N (what each
                       of N sees); scaled, N × rate (all of it on one)
  --idle S             unloaded seconds before and after each round's load (default 11)
  --no-pin             do not pin the load generator and servers to cores`;

export function parseScaleArgs(argv: string[]): ScaleOptions {
  const flags = new Map<string, string>();
  const bools = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (['--soak', '--quick', '--no-pin', '--solo'].includes(a)) bools.add(a);
    else if (a.startsWith('--') && i + 1 < argv.length) flags.set(a, argv[++i]!);
    else throw new UsageError(`unknown argument ${a}\n${USAGE}`);
  }
  const known = ['--load', '--cycles', '--idle', '--replicas', '--rate', '--duration', '--warmup', '--throughput', '--concurrency', '--redis-db', '--pg', '--redis'];
  for (const k of flags.keys()) if (!known.includes(k)) throw new UsageError(`unknown option ${k}\n${USAGE}`);
  const soak = bools.has('--soak');
  const quick = bools.has('--quick');
  const num = (k: string, d: number) => {
    const v = flags.get(k);
    if (v === undefined) return d;
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) throw new UsageError(`${k} must be a number ≥ 0`);
    return n;
  };
  const load = flags.get('--load') ?? 'scaled';
  if (load !== 'scaled' && load !== 'fixed') throw new UsageError('--load: scaled or fixed');
  const replicas = (flags.get('--replicas') ?? (soak ? '2' : '1,2,4')).split(',').map(Number);
  if (replicas.some((n) => !Number.isInteger(n) || n < 1 || n > 16)) throw new UsageError('--replicas: whole numbers 1–16');
  return {
    soak,
    quick,
    replicas: soak ? replicas.slice(0, 1) : [...replicas].sort((a, b) => a - b),
    ratePerSec: num('--rate', soak ? 150 : load === 'scaled' ? 50 : 200),
    durationSec: num('--duration', quick ? 4 : soak ? 60 : 20),
    warmupSec: num('--warmup', quick ? 1 : soak ? 60 : 15),
    throughputSec: num('--throughput', quick ? 2 : 5),
    concurrency: num('--concurrency', 32),
    redisDb: num('--redis-db', 13),
    pgAdminUrl: flags.get('--pg') ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    redisUrl: flags.get('--redis') ?? 'redis://127.0.0.1:6379',
    pin: !bools.has('--no-pin'),
    cycles: soak ? 0 : num('--cycles', quick ? 1 : 2),
    idleSec: num('--idle', 11),
    solo: bools.has('--solo'),
    load,
  };
}
