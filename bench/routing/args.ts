// Command-line options of `node bench/routing/run.ts` (npm run bench:routing -- …).
import { join } from 'node:path';
import { readFlags, UsageError } from '../flags.ts';
import { SETS } from './sets.ts';

export interface Options {
  dataDir: string;
  /** A named set built from the data at run time (sets.ts); undefined = the data as it is. */
  set: string | undefined;
  /** Every completion sent with `stream: true`. */
  stream: boolean;
  floor: number;
  outcomeRate: number;
  judgeNoise: number;
  seed: number;
  drift: boolean;
  /** Rows per split (train, test), stratified by step; undefined = all. */
  limit: number | undefined;
  concurrency: number;
  /** Wall-clock budget for sending calls; calls not sent by then are counted as skipped. */
  maxSeconds: number;
  /** Where the JSON result is also written; undefined = bench/results/routing-<timestamp>.json. */
  out: string | undefined;
  /** Where every call's record (what served it, as a trial or not, its score and the baseline's, its cost) is written as JSON; undefined = nowhere. */
  calls: string | undefined;
  /**
   * One call at a time, each sent once what the one before taught has been learned, with the
   * gateway's routing draws seeded (ROUTING_SEED): the same seed makes the same decisions, so two
   * versions of the routing compare call for call.
   */
  reproducible: boolean;
}

export const USAGE = `usage: node bench/routing/run.ts [options]   (or: npm run bench:routing -- [options])
  --data DIR          replay data: replay.jsonl + models.json (default ../shared/data/routing from the repo root)
  --set NAME          a named set built from the data at run time: ${Object.keys(SETS).join(', ')} (default: the data as it is)
  --stream            send every completion with stream: true
  --floor X           quality floor written to the tenant's routing settings, and used by the
                      one-model-per-step reference line (default 0.95)
  --outcome-rate X    share of calls whose recorded score is reported as an outcome (default 0.3)
  --judge-noise X     probability the replay judge flips its verdict (default 0.1)
  --seed N            seed of every random choice (default 1)
  --drift             halfway through the test phase, degrade the most-served model of the largest step
  --limit N           N rows per split (train and test), stratified by step (default: all)
  --concurrency N     calls in flight (default 6, 1–16)
  --reproducible      one call at a time, each once the learning of the one before is done, with the
                      gateway's routing draws seeded from --seed: a run repeats exactly, so two
                      versions of the routing compare call for call (slower; not with --concurrency)
  --max-seconds S     budget for sending calls (default 840); unsent calls are reported as skipped
  --out FILE          also write the JSON result here (default bench/results/routing-<timestamp>.json)
  --calls FILE        write every call's record here (served model, trial, policy, scores, costs): where a run's saving went`;

export { UsageError };

export function parseArgs(argv: string[], repoRoot: string): Options {
  const known = ['data', 'set', 'floor', 'outcome-rate', 'judge-noise', 'seed', 'limit', 'concurrency', 'max-seconds', 'out', 'calls'];
  const { flags, switches: bools } = readFlags(argv, USAGE, { known, switches: ['drift', 'stream', 'reproducible'] });
  const num = (key: string, fallback: number, min: number, max: number, int = false): number => {
    const raw = flags.get(key);
    if (raw === undefined) return fallback;
    const v = Number(raw);
    if (!Number.isFinite(v) || v < min || v > max || (int && !Number.isInteger(v))) {
      throw new UsageError(`--${key} must be ${int ? 'an integer' : 'a number'} in [${min}, ${max}], got ${raw}`);
    }
    return v;
  };
  const limitRaw = flags.get('limit');
  const set = flags.get('set');
  const reproducible = bools.has('reproducible');
  if (reproducible && flags.has('concurrency')) throw new UsageError('--reproducible sends one call at a time: drop --concurrency');
  if (set !== undefined && !SETS[set]) throw new UsageError(`--set must be one of ${Object.keys(SETS).join(', ')}, got ${set}`);
  return {
    dataDir: flags.get('data') ?? join(repoRoot, '..', 'shared', 'data', 'routing'),
    set,
    stream: bools.has('stream'),
    floor: num('floor', 0.95, 0, 1),
    outcomeRate: num('outcome-rate', 0.3, 0, 1),
    judgeNoise: num('judge-noise', 0.1, 0, 1),
    seed: num('seed', 1, 0, 2 ** 32 - 1, true),
    drift: bools.has('drift'),
    limit: limitRaw === undefined ? undefined : num('limit', 0, 1, 1e9, true),
    concurrency: reproducible ? 1 : num('concurrency', 6, 1, 16, true),
    maxSeconds: num('max-seconds', 840, 10, 3600),
    out: flags.get('out'),
    calls: flags.get('calls'),
    reproducible,
  };
}
