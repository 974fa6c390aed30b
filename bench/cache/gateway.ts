// The semantic and exact caches measured through the real gateway: an in-process gateway
// (embedded database, in-memory hot store) in front of the mock OpenAI vendor. For each
// pair, `a` is asked (a miss, answered by the vendor and stored), then `b`: a semantic hit
// or a miss. Each pair is its own step (optimizer.step.id), so pairs never see each other,
// as in the core benchmark. Latencies are measured by the client, one request at a time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { startOpenAIMock } from '@optimizer/mock-providers';
import { buildApp } from '../../apps/api/src/app.ts';
import { loadConfig } from '../../apps/api/src/config.ts';
import { createLogger } from '../../apps/api/src/logger.ts';
import { createServices } from '../../apps/api/src/services.ts';

export interface GatewayPair {
  a: string;
  b: string;
  duplicate: boolean;
}

export interface GatewayResult {
  pairs: number;
  duplicates: number;
  hits: number;
  true_hits: number;
  false_hits: number;
  precision: number;
  recall: number;
  llm_pairs: number;
  llm_recall: number | null;
  /** Client-observed latency of `b` when it was a semantic hit / a miss (embedding included in both). */
  semantic_hit_ms_p50: number;
  semantic_miss_ms_p50: number;
  semantic_hit_ms_p99: number;
  /** The gateway's own time on a call with no cache (its floor), and on an exact-cache hit; server-measured. */
  floor_overhead_ms_p50: number;
  exact_hit_overhead_ms_p50: number;
  exact_hit_adds_ms_p50: number;
  /** The same two, client-observed. */
  floor_ms_p50: number;
  exact_hit_ms_p50: number;
  threshold: number;
  embedder: string | null;
  false_hit_pairs: { a: string; b: string; similarity: number }[];
}

function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

const PLATFORM_KEY = 'sk-bench-cache';

export async function measureThroughGateway(opts: { pairs: GatewayPair[]; llm: GatewayPair[]; modelDir: string; exactRequests: number; progress: (line: string) => void }): Promise<GatewayResult> {
  const vendor = await startOpenAIMock({ apiKey: PLATFORM_KEY, record: false });
  const dataDir = mkdtempSync(join(tmpdir(), 'optimizer-bench-cache-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'warn',
    ADMIN_KEY: `admin-bench-cache-${'x'.repeat(24)}`,
    OPENAI_BASE_URL: vendor.url,
    OPENAI_API_KEY: PLATFORM_KEY,
    EMBEDDING_MODEL_DIR: opts.modelDir,
    // Matching is measured here, not the judge (the mock vendor cannot grade); and no lookup may time out.
    SEMANTIC_CHECK_RATE: '0',
    SEMANTIC_EMBED_TIMEOUT_MS: '30000',
  });
  const quiet = new Writable({ write: (_c, _e, cb) => cb() });
  const services = await createServices(config, createLogger('warn', quiet), { announceAdminKey: () => undefined });
  const app = await buildApp(services);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  try {
    const tenant = async (cache: Record<string, unknown> | null): Promise<string> => {
      const r = await fetch(`${base}/v1/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ company: 'Bench', email: `${crypto.randomUUID()}@example.com` }) });
      const key = ((await r.json()) as { api_key: string }).api_key;
      if (cache) {
        const s = await fetch(`${base}/v1/settings/routing`, { method: 'PUT', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ cache }) });
        if (s.status !== 200) throw new Error(`settings: ${s.status} ${await s.text()}`);
      }
      return key;
    };
    const ask = async (key: string, text: string, step?: string) => {
      const body: Record<string, unknown> = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: text }] };
      if (step) body.optimizer = { step: { id: step } };
      const t0 = performance.now();
      const r = await fetch(`${base}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      await r.arrayBuffer();
      const ms = performance.now() - t0;
      if (r.status !== 200) throw new Error(`completion: ${r.status}`);
      return { ms, kind: r.headers.get('x-optimizer-cache-kind'), similarity: Number(r.headers.get('x-optimizer-cache-similarity') ?? 'NaN'), overhead: Number(r.headers.get('x-optimizer-overhead-ms') ?? 'NaN') };
    };

    const semanticKey = await tenant({ semantic: true, ttl_seconds: 86_400 });
    // warm up: the first semantic call makes the embedder and loads the tenant
    await ask(semanticKey, 'How do I warm up?', 'warm-up');
    await services.semanticCache.settle();
    await ask(semanticKey, 'How can I warm up?', 'warm-up');

    const hitMs: number[] = [];
    const missMs: number[] = [];
    const falseHits: GatewayResult['false_hit_pairs'] = [];
    let tp = 0;
    let fp = 0;
    let dups = 0;
    const run = async (pairs: GatewayPair[], prefix: string): Promise<{ tp: number; fp: number; dups: number }> => {
      let t = 0;
      let f = 0;
      let d = 0;
      let lastReport = performance.now();
      for (let i = 0; i < pairs.length; i++) {
        const p = pairs[i]!;
        const step = `${prefix}-${i}`;
        await ask(semanticKey, p.a, step);
        await services.semanticCache.settle(); // the answer is stored in the background
        const r = await ask(semanticKey, p.b, step);
        const hit = r.kind !== null;
        if (p.duplicate) d++;
        if (hit) {
          hitMs.push(r.ms);
          if (p.duplicate) t++;
          else {
            f++;
            falseHits.push({ a: p.a, b: p.b, similarity: r.similarity });
          }
        } else missMs.push(r.ms);
        if (performance.now() - lastReport > 10_000) {
          lastReport = performance.now();
          opts.progress(`[bench:cache] gateway ${prefix}: ${i + 1}/${pairs.length} pairs`);
        }
      }
      return { tp: t, fp: f, dups: d };
    };
    ({ tp, fp, dups } = await run(opts.pairs, 'pair'));
    const [hitsBefore, missesBefore] = [hitMs.length, missMs.length];
    const llm = opts.llm.length ? await run(opts.llm, 'llm') : null;
    hitMs.splice(hitsBefore); // latency from the labelled pairs only
    missMs.splice(missesBefore);

    // the exact cache against the gateway's floor: a call with no cache at all
    const plainKey = await tenant(null);
    const exactKey = await tenant({ exact: true, ttl_seconds: 86_400 });
    const floor: number[] = [];
    const floorMs: number[] = [];
    const exact: number[] = [];
    const exactMs: number[] = [];
    for (let i = 0; i < opts.exactRequests; i++) {
      const text = `Exact cache timing question number ${i}?`;
      const plain = await ask(plainKey, text);
      floor.push(plain.overhead);
      floorMs.push(plain.ms);
      await ask(exactKey, text);
      const hit = await ask(exactKey, text);
      if (hit.kind !== 'exact') throw new Error('the exact cache did not answer a repeated request');
      exact.push(hit.overhead);
      exactMs.push(hit.ms);
    }
    const precision = tp + fp ? tp / (tp + fp) : 1;
    return {
      pairs: opts.pairs.length,
      duplicates: dups,
      hits: tp + fp,
      true_hits: tp,
      false_hits: fp,
      precision,
      recall: dups ? tp / dups : 0,
      llm_pairs: opts.llm.length,
      llm_recall: llm ? llm.tp / Math.max(1, llm.dups) : null,
      semantic_hit_ms_p50: percentile(hitMs, 50),
      semantic_hit_ms_p99: percentile(hitMs, 99),
      semantic_miss_ms_p50: percentile(missMs, 50),
      floor_overhead_ms_p50: percentile(floor, 50),
      exact_hit_overhead_ms_p50: percentile(exact, 50),
      exact_hit_adds_ms_p50: percentile(exact, 50) - percentile(floor, 50),
      floor_ms_p50: percentile(floorMs, 50),
      exact_hit_ms_p50: percentile(exactMs, 50),
      threshold: services.semanticCache.defaultThreshold,
      embedder: services.semanticCache.embedderName,
      false_hit_pairs: falseHits.sort((x, y) => y.similarity - x.similarity),
    };
  } finally {
    await app.close();
    await services.close();
    await vendor.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
