// The semantic cache's acceptance figure, as a test: at the default settings, precision ≥ 0.96
// with recall ≥ 0.12 on all of qqp_dev. Embedding all 32,000 questions takes minutes, so the
// test embeds only the pairs that can be hits: those whose similarity was at least
// `floor` (0.925, under the default threshold, which a request can only raise) when the
// fixture was written by `npm run bench:cache -- --llm none --gateway-limit 0 --near-pairs
// apps/api/test/fixtures/qqp-near-pairs.json`. Recall counts every duplicate in the file.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_THRESHOLD, OnnxMiniLM, SemanticIndex } from '../src/cache/semantic/index.ts';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, '..', '..', '..');
const shared = join(repoRoot, '..', 'shared');

interface Fixture {
  pairs: string;
  embedder: string;
  floor: number;
  rows: number;
  duplicates: number;
  indices: number[];
}

interface Pair {
  a: string;
  b: string;
  duplicate: boolean;
}

/** The pairs as the benchmark reads them: rows with two string questions, in file order. */
function readPairs(file: string): Pair[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { a?: unknown; b?: unknown; duplicate?: unknown })
    .filter((j): j is { a: string; b: string; duplicate?: unknown } => typeof j.a === 'string' && typeof j.b === 'string')
    .map((j) => ({ a: j.a, b: j.b, duplicate: j.duplicate === 1 || j.duplicate === true || j.duplicate === '1' }));
}

describe('semantic cache on qqp_dev at the default settings', () => {
  const fixture = JSON.parse(readFileSync(join(here, 'fixtures', 'qqp-near-pairs.json'), 'utf8')) as Fixture;
  const all = readPairs(join(shared, 'data', 'paraphrase', fixture.pairs));
  let embedder: OnnxMiniLM;
  const vectors = new Map<string, Float32Array>();

  beforeAll(async () => {
    const texts = [...new Set(fixture.indices.flatMap((i) => [all[i]!.a, all[i]!.b]))];
    embedder = new OnnxMiniLM({ modelDir: join(shared, 'models', 'all-MiniLM-L6-v2'), maxQueue: texts.length });
    await embedder.ready;
    const batches: Promise<Float32Array[]>[] = [];
    for (let i = 0; i < texts.length; i += 32) batches.push(embedder.embed(texts.slice(i, i + 32)));
    (await Promise.all(batches)).flat().forEach((v, k) => vectors.set(texts[k]!, v));
  }, 300_000);

  afterAll(async () => {
    await embedder?.close();
  });

  it('was measured on these very pairs, with a floor no request can go under', () => {
    expect(all).toHaveLength(fixture.rows);
    expect(all.filter((p) => p.duplicate)).toHaveLength(fixture.duplicates);
    expect(fixture.embedder).toBe(embedder.name);
    expect(fixture.floor).toBeLessThan(DEFAULT_THRESHOLD);
  });

  it('serves paraphrases with precision ≥ 0.96 at recall ≥ 0.12', () => {
    const index = new SemanticIndex({ threshold: DEFAULT_THRESHOLD });
    let trueHits = 0;
    let falseHits = 0;
    for (const i of fixture.indices) {
      const p = all[i]!;
      const key = `pair:${i}`;
      index.add(key, { id: 'a', vector: vectors.get(p.a)!, text: p.a });
      if (index.lookup(key, vectors.get(p.b)!, p.b)) {
        if (p.duplicate) trueHits++;
        else falseHits++;
      }
      index.clear(key);
    }
    const precision = trueHits / (trueHits + falseHits);
    const recall = trueHits / fixture.duplicates;
    expect(precision).toBeGreaterThanOrEqual(0.96);
    expect(recall).toBeGreaterThanOrEqual(0.12);
  });
});
