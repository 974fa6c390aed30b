// Reshapes the replay set into the shape of the acceptance replay we do not have: many small steps
// of a few hundred calls each, few models. Each chosen source step is cut into small steps of
// about --calls rows (train and test rows of a small step come from the same source step, in the
// source's train/test proportion), and each row keeps only the listed models' answers. See README.md.
//
//   node bench/routing/reshape.ts --out DIR [--data DIR] [--steps arc_challenge,winogrande] [--calls 130]
//                                 [--models gpt-4-1106-preview,mistralai/mixtral-8x7b-chat] [--seed 1]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanRows, type Models, type Row } from './data.ts';
import { hash32, mulberry32, shuffled } from './prng.ts';
import { readFlags } from '../flags.ts';

export interface ReshapeOptions {
  /** Source steps to keep, in output order. */
  steps: string[];
  /** Target rows (train + test) per small step. */
  calls: number;
  /** Models to keep; must include the baseline. */
  models: string[];
  seed: number;
}

export interface Reshaped {
  models: Models;
  rows: Row[];
  /** Per source step: rows kept, small steps made. */
  summary: { step: string; rows: number; train: number; test: number; steps: number }[];
  /** Why rows were left out (from cleanRows), one line each. */
  dropped: string[];
}

/** A step's train rows and its test rows, each shuffled by `rand` (train first, so a seed gives the same order). */
export function shuffledSplits<R extends { split: string }>(rows: readonly R[], rand: () => number): { train: R[]; test: R[] } {
  const train = shuffled(
    rows.filter((r) => r.split === 'train'),
    rand,
  );
  const test = shuffled(
    rows.filter((r) => r.split === 'test'),
    rand,
  );
  return { train, test };
}

/** Cuts `n` items into `k` consecutive chunks whose sizes differ by at most one: chunk i is [start(i), start(i+1)). */
function chunkStart(n: number, k: number, i: number): number {
  return Math.floor((i * n) / k);
}

export function reshape(all: readonly Row[], source: Models, o: ReshapeOptions): Reshaped {
  if (!o.models.includes(source.baseline)) throw new Error(`--models must include the baseline ${source.baseline}`);
  for (const m of o.models) if (!source.models[m]) throw new Error(`model ${m} is not in models.json (known: ${Object.keys(source.models).join(', ')})`);
  if (!Number.isInteger(o.calls) || o.calls < 2) throw new Error(`--calls must be an integer ≥ 2, got ${o.calls}`);
  const known = new Set(all.map((r) => r.step));
  for (const s of o.steps) if (!known.has(s)) throw new Error(`step ${s} is not in the replay (known: ${[...known].sort().join(', ')})`);

  const keep = [...new Set(o.models)];
  const models: Models = { baseline: source.baseline, models: Object.fromEntries(keep.map((m) => [m, source.models[m]!])) };
  const wanted = new Set(o.steps);
  // Rows lacking a kept model's answer, and train copies of test prompts, are left out here, as the
  // harness would: the small steps then keep the proportions the harness sees.
  const clean = cleanRows(
    all.filter((r) => wanted.has(r.step)),
    models,
    keep,
  );
  const order = new Map(all.map((r, i) => [r, i]));

  const rows: Row[] = [];
  const summary: Reshaped['summary'] = [];
  for (const step of o.steps) {
    const of = clean.rows.filter((r) => r.step === step);
    const { train, test } = shuffledSplits(of, mulberry32(hash32(`${o.seed}|reshape|${step}`)));
    // At least one test row per small step when the source has test rows.
    let k = Math.max(1, Math.round(of.length / o.calls));
    if (test.length > 0) k = Math.min(k, test.length);
    const width = Math.max(2, String(k).length);
    for (let i = 0; i < k; i++) {
      const id = `${step}#${String(i + 1).padStart(width, '0')}`;
      const part = [...train.slice(chunkStart(train.length, k, i), chunkStart(train.length, k, i + 1)), ...test.slice(chunkStart(test.length, k, i), chunkStart(test.length, k, i + 1))];
      part.sort((a, b) => order.get(a)! - order.get(b)!);
      for (const r of part) rows.push({ ...r, step: id, answers: Object.fromEntries(keep.map((m) => [m, r.answers[m]!])) });
    }
    summary.push({ step, rows: of.length, train: train.length, test: test.length, steps: k });
  }
  return { models, rows, summary, dropped: clean.dropped };
}

// ---- CLI -------------------------------------------------------------------------------------

const USAGE = `usage: node bench/routing/reshape.ts --out DIR [options]
  --out DIR       where replay.jsonl + models.json are written (created if missing)
  --data DIR      source replay data (default ../shared/data/routing from the repo root)
  --steps A,B     source steps to split (default arc_challenge,winogrande)
  --calls N       rows (train + test) per small step, about (default 130)
  --models A,B    models to keep; must include the baseline (default gpt-4-1106-preview,mistralai/mixtral-8x7b-chat)
  --seed N        seeds which rows go to which small step (default 1)`;

function parse(argv: string[]): ReshapeOptions & { out: string; data: string } {
  const { flags } = readFlags(argv, USAGE, { known: ['out', 'data', 'steps', 'calls', 'models', 'seed'] });
  const out = flags.get('out');
  if (!out) throw new Error('--out DIR is required');
  const list = (s: string) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x !== '');
  const seed = Number(flags.get('seed') ?? '1');
  if (!Number.isInteger(seed) || seed < 0 || seed > 2 ** 32 - 1) throw new Error(`--seed must be an integer in [0, 2^32-1], got ${flags.get('seed')}`);
  const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  return {
    out: resolve(out),
    data: resolve(flags.get('data') ?? join(repoRoot, '..', 'shared', 'data', 'routing')),
    steps: list(flags.get('steps') ?? 'arc_challenge,winogrande'),
    calls: Number(flags.get('calls') ?? '130'),
    models: list(flags.get('models') ?? 'gpt-4-1106-preview,mistralai/mixtral-8x7b-chat'),
    seed,
  };
}

function main(): void {
  const o = parse(process.argv.slice(2));
  const source = JSON.parse(readFileSync(join(o.data, 'models.json'), 'utf8')) as Models;
  const all = readFileSync(join(o.data, 'replay.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Row);
  const r = reshape(all, source, o);
  mkdirSync(o.out, { recursive: true });
  writeFileSync(join(o.out, 'models.json'), `${JSON.stringify(r.models, null, 2)}\n`);
  writeFileSync(join(o.out, 'replay.jsonl'), r.rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
  for (const d of r.dropped) console.log(`left out: ${d}`);
  for (const s of r.summary) console.log(`${s.step}: ${s.rows} rows (${s.train} train, ${s.test} test) → ${s.steps} steps of ~${Math.round(s.rows / s.steps)}`);
  console.log(`wrote ${r.rows.length} rows in ${r.summary.reduce((a, s) => a + s.steps, 0)} steps, models ${Object.keys(r.models.models).join(', ')} (baseline ${r.models.baseline}) to ${o.out}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main();
  } catch (e) {
    process.stderr.write(`reshape: ${(e as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
}
