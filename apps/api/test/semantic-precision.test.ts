// The semantic cache's figure on unseen pairs, as a test: at the default settings (threshold
// and guards, the packaged MiniLM) on the held-out half of qqp_dev, the pairs from 8,000 on,
// which the defaults were not chosen on (they were chosen on the first 8,000). There they give
// precision 0.949 (338 true hits, 18 false) at recall 0.112: under the 0.96 issue 13 asks for,
// which no threshold or guard chosen on the first half reached, nor the general rules tried
// after (rare subject words, a margin for reworded pairs; see the README beside the cache and
// docs/decisions.md, "Semantic cache on unseen pairs"). The test holds that level, so a change of the defaults that loses precision or recall
// on unseen pairs fails it. Embedding 16,000 questions takes minutes, so the test embeds only
// the pairs that can be hits: those whose similarity was at least `floor` (0.925, under the
// default threshold, which a request can only raise) when the fixture was written by
// `npm run bench:cache -- --offset 8000 --llm none --gateway-limit 0 --near-pairs
// apps/api/test/fixtures/qqp-near-pairs.json`. Recall counts every duplicate of the half.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_THRESHOLD, OnnxMiniLM, SemanticIndex } from '../src/cache/semantic/index.ts';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, '..', '..', '..');
const shared = join(repoRoot, '..', 'shared');
/** First pair of the held-out half. */
const HELD_OUT_FROM = 8000;

interface Fixture {
  pairs: string;
  embedder: string;
  floor: number;
  offset: number;
  rows: number;
  duplicates: number;
  /** Indices into the whole file. */
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

describe('semantic cache on the held-out half of qqp_dev at the default settings', () => {
  const fixture = JSON.parse(readFileSync(join(here, 'fixtures', 'qqp-near-pairs.json'), 'utf8')) as Fixture;
  const heldOut = readPairs(join(shared, 'data', 'paraphrase', fixture.pairs)).slice(HELD_OUT_FROM);
  const pair = (i: number): Pair => heldOut[i - HELD_OUT_FROM]!;
  let embedder: OnnxMiniLM;
  const vectors = new Map<string, Float32Array>();

  beforeAll(async () => {
    const texts = [...new Set(fixture.indices.flatMap((i) => [pair(i).a, pair(i).b]))];
    embedder = new OnnxMiniLM({ model: { kind: 'packaged' }, maxQueue: texts.length });
    await embedder.ready;
    const batches: Promise<Float32Array[]>[] = [];
    for (let i = 0; i < texts.length; i += 32) batches.push(embedder.embed(texts.slice(i, i + 32)));
    (await Promise.all(batches)).flat().forEach((v, k) => vectors.set(texts[k]!, v));
  }, 300_000);

  afterAll(async () => {
    await embedder?.close();
  });

  it('was measured on these very pairs, the held-out half, with a floor no request can go under', () => {
    expect(fixture.offset).toBe(HELD_OUT_FROM);
    expect(heldOut).toHaveLength(fixture.rows);
    expect(heldOut.filter((p) => p.duplicate)).toHaveLength(fixture.duplicates);
    expect(fixture.indices.every((i) => i >= HELD_OUT_FROM)).toBe(true);
    expect(fixture.embedder).toBe(embedder.name);
    expect(fixture.floor).toBeLessThan(DEFAULT_THRESHOLD);
  });

  it('serves paraphrases of unseen pairs with precision ≥ 0.945 at recall ≥ 0.11', () => {
    const index = new SemanticIndex({ threshold: DEFAULT_THRESHOLD });
    let trueHits = 0;
    let falseHits = 0;
    for (const i of fixture.indices) {
      const p = pair(i);
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
    expect(precision).toBeGreaterThanOrEqual(0.945);
    expect(recall).toBeGreaterThanOrEqual(0.11);
  });
});
