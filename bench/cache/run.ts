// Semantic-cache benchmark: precision and recall of the matching core (embedder + index +
// guards) on labelled question pairs, recall on LLM paraphrases, and the latency of the hit
// and the miss path. See README.md beside this file.
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GUARDS, OnnxMiniLM, LexicalEmbedder, SemanticIndex, defaultThresholdFor, type Embedder } from '../../apps/api/src/cache/semantic/index.ts';
import { NEAR_PAIRS_FLOOR, parseArgs, UsageError, type Options } from './args.ts';
import { measureThroughGateway } from './gateway.ts';
import { runVerified, type VerifyResult } from './verify.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Pair {
  a: string;
  b: string;
  duplicate: boolean;
}

interface Scored extends Pair {
  similarity: number;
  /** Guard that refused, or undefined when the guards admit the pair. */
  refusedBy: string | undefined;
  reason: string | undefined;
}

function readPairs(opts: Options): Pair[] {
  const rows: Pair[] = [];
  const lines = readFileSync(opts.pairs, 'utf8').split('\n');
  for (const line of lines) {
    if (!line.trim()) continue;
    const j = JSON.parse(line) as { a?: unknown; b?: unknown; duplicate?: unknown };
    if (typeof j.a !== 'string' || typeof j.b !== 'string') continue;
    rows.push({ a: j.a, b: j.b, duplicate: j.duplicate === 1 || j.duplicate === true || j.duplicate === '1' });
  }
  const from = rows.slice(opts.offset);
  return opts.limit === undefined ? from : from.slice(0, opts.limit);
}

function readParaphrases(opts: Options): Pair[] {
  if (!opts.llm) return [];
  const rows = JSON.parse(readFileSync(opts.llm, 'utf8')) as { origin: string; similar: string }[];
  const pairs = rows.filter((r) => typeof r.origin === 'string' && typeof r.similar === 'string').map((r) => ({ a: r.origin, b: r.similar, duplicate: true }));
  return opts.llmLimit === undefined ? pairs : pairs.slice(0, opts.llmLimit);
}

async function embedAll(embedder: Embedder, texts: string[], batch: number): Promise<Map<string, Float32Array>> {
  const unique = [...new Set(texts)];
  const out = new Map<string, Float32Array>();
  const started = performance.now();
  // Several batches queued at once keep the worker busy; the embedder sends them `batch` at a time.
  const chunk = batch * 8;
  let lastReport = 0;
  for (let i = 0; i < unique.length; i += chunk) {
    const part = unique.slice(i, i + chunk);
    const jobs: Promise<Float32Array[]>[] = [];
    for (let j = 0; j < part.length; j += batch) jobs.push(embedder.embed(part.slice(j, j + batch)));
    const vectors = (await Promise.all(jobs)).flat();
    part.forEach((t, k) => out.set(t, vectors[k]!));
    const now = performance.now();
    if (now - lastReport > 10_000 || i + chunk >= unique.length) {
      lastReport = now;
      const done = Math.min(i + chunk, unique.length);
      const rate = (now - started) / done;
      process.stderr.write(`[bench:cache] embedded ${done}/${unique.length} texts, ${rate.toFixed(1)} ms/text, ~${Math.round(((unique.length - done) * rate) / 1000)} s left\n`);
    }
  }
  return out;
}

/** Every pair through a fresh key: add `a`, look up `b` with the guards (threshold-free verdicts, so one pass serves every threshold). */
function score(pairs: Pair[], vectors: Map<string, Float32Array>): Scored[] {
  const index = new SemanticIndex({ threshold: -1, candidates: 1 });
  return pairs.map((p, i) => {
    const key = `pair:${i}`;
    index.add(key, { id: 'a', vector: vectors.get(p.a)!, text: p.a });
    const { hit, rejected } = index.explain(key, vectors.get(p.b)!, p.b);
    index.clear(key);
    const r = rejected[0];
    const reason = r?.verdict.reason;
    return { ...p, similarity: hit?.similarity ?? r?.similarity ?? -1, refusedBy: reason?.split(':')[0], reason };
  });
}

function qqpDuplicates(scored: Scored[]): number {
  return scored.filter((s) => s.duplicate).length;
}

function tally(scored: Scored[], threshold: number): { tp: number; fp: number; dups: number; precision: number; recall: number } {
  let tp = 0;
  let fp = 0;
  let dups = 0;
  for (const s of scored) {
    if (s.duplicate) dups++;
    if (s.similarity < threshold || s.refusedBy) continue;
    if (s.duplicate) tp++;
    else fp++;
  }
  return { tp, fp, dups, precision: tp + fp ? tp / (tp + fp) : 1, recall: dups ? tp / dups : 0 };
}

function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

const round = (x: number, d = 4): number => (Number.isFinite(x) ? Number(x.toFixed(d)) : x);

/**
 * Latency of one request as the gateway would see it: embed the question alone (no batching
 * with others) and look it up in one key holding every `a` question of the run.
 */
async function timePaths(embedder: Embedder, pairs: Pair[], vectors: Map<string, Float32Array>, threshold: number, n: number) {
  const index = new SemanticIndex({ threshold, maxEntriesPerKey: 50_000 });
  const key = 'timing';
  const seen = new Set<string>();
  for (const p of pairs) {
    if (seen.has(p.a) || seen.size >= 50_000) continue;
    seen.add(p.a);
    index.add(key, { id: String(seen.size), vector: vectors.get(p.a)!, text: p.a });
  }
  const hit: number[] = [];
  const miss: number[] = [];
  const lookupUs: number[] = [];
  for (const p of pairs) {
    if (hit.length >= n && miss.length >= n) break;
    const t0 = performance.now();
    const [v] = await embedder.embed([p.b]);
    const t1 = performance.now();
    const found = index.lookup(key, v!, p.b);
    const t2 = performance.now();
    lookupUs.push((t2 - t1) * 1000);
    const bucket = found ? hit : miss;
    if (bucket.length < n) bucket.push(t2 - t0);
  }
  return {
    entries: index.size(key),
    hit_ms_p50: percentile(hit, 50),
    hit_ms_p99: percentile(hit, 99),
    miss_ms_p50: percentile(miss, 50),
    miss_ms_p99: percentile(miss, 99),
    lookup_us_p50: percentile(lookupUs, 50),
    lookup_us_p99: percentile(lookupUs, 99),
    timed_hits: hit.length,
    timed_misses: miss.length,
  };
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2), root);
  const pairs = readPairs(opts);
  if (pairs.length === 0) throw new UsageError(`no pairs in ${opts.pairs} (offset ${opts.offset})`);
  const paraphrases = readParaphrases(opts);

  let embedder: Embedder;
  if (opts.embedder === 'lexical') embedder = new LexicalEmbedder();
  else {
    // embedAll keeps eight batches queued at a time
    const onnx = new OnnxMiniLM({ modelDir: opts.modelDir, maxBatch: opts.batch, maxQueue: opts.batch * 8 });
    const t0 = performance.now();
    try {
      await onnx.ready;
    } catch (err) {
      await onnx.close();
      throw new UsageError(`${err instanceof Error ? err.message : String(err)}\n(use --model-dir, or --embedder lexical)`);
    }
    process.stderr.write(`[bench:cache] model loaded from ${opts.modelDir} in ${Math.round(performance.now() - t0)} ms\n`);
    embedder = onnx;
  }
  const threshold = opts.threshold ?? defaultThresholdFor(embedder.name);

  try {
    const texts = [...pairs.flatMap((p) => [p.a, p.b]), ...paraphrases.flatMap((p) => [p.a, p.b])];
    const t0 = performance.now();
    const vectors = await embedAll(embedder, texts, opts.batch);
    const embedSeconds = (performance.now() - t0) / 1000;

    const scored = score(pairs, vectors);
    if (opts.nearPairs) {
      const indices = scored.flatMap((s, i) => (s.similarity >= NEAR_PAIRS_FLOOR ? [opts.offset + i] : []));
      const fixture = { pairs: basename(opts.pairs), embedder: embedder.name, floor: NEAR_PAIRS_FLOOR, offset: opts.offset, rows: pairs.length, duplicates: qqpDuplicates(scored), indices };
      writeFileSync(opts.nearPairs, `${JSON.stringify(fixture)}\n`);
      process.stderr.write(`[bench:cache] wrote ${indices.length} pairs with similarity ≥ ${NEAR_PAIRS_FLOOR} to ${opts.nearPairs}\n`);
    }
    const llmScored = score(paraphrases, vectors);
    const qqp = tally(scored, threshold);
    const llm = tally(llmScored, threshold);

    console.log(`\nSemantic cache on ${pairs.length} pairs (${qqp.dups} duplicates) from ${opts.pairs}, offset ${opts.offset}; embedder ${embedder.name}; ${vectors.size} texts embedded in ${embedSeconds.toFixed(1)} s`);
    console.log('\nthreshold  precision  recall  true_hits  false_hits   (same vectors and guards, other thresholds)');
    const lo = embedder.name === 'lexical' ? 0.7 : 0.85;
    for (let t = lo; t <= 0.9901; t += 0.01) {
      const r = tally(scored, t);
      const mark = Math.abs(t - threshold) < 0.0005 ? '  <- this run' : '';
      console.log(`  ${t.toFixed(2)}      ${r.precision.toFixed(3)}     ${r.recall.toFixed(3)}   ${String(r.tp).padStart(6)}   ${String(r.fp).padStart(8)}${mark}`);
    }
    const atThreshold = scored.filter((s) => s.similarity >= threshold);
    console.log(`\nGuards at threshold ${threshold}: ${atThreshold.length} pairs above it; refused (first guard that refused):`);
    for (const g of GUARDS) {
      const refused = atThreshold.filter((s) => s.refusedBy === g.name);
      if (refused.length === 0) continue;
      const dup = refused.filter((s) => s.duplicate).length;
      console.log(`  ${g.name.padEnd(14)} ${String(refused.length).padStart(4)}  (labelled duplicate ${dup}, non-duplicate ${refused.length - dup})`);
    }
    if (paraphrases.length) console.log(`\nLLM paraphrases: ${llm.tp}/${paraphrases.length} served from cache (recall ${llm.recall.toFixed(3)})`);

    process.stderr.write(`[bench:cache] timing ${opts.timing} hits and ${opts.timing} misses one request at a time\n`);
    const timing = await timePaths(embedder, pairs, vectors, threshold, opts.timing);
    console.log(
      `\nLatency (embed one question + lookup in one key of ${timing.entries} entries): hit p50 ${timing.hit_ms_p50.toFixed(2)} ms, p99 ${timing.hit_ms_p99.toFixed(2)} ms (${timing.timed_hits} timed); ` +
        `miss p50 ${timing.miss_ms_p50.toFixed(2)} ms, p99 ${timing.miss_ms_p99.toFixed(2)} ms (${timing.timed_misses} timed); lookup alone p50 ${Math.round(timing.lookup_us_p50)} µs, p99 ${Math.round(timing.lookup_us_p99)} µs`,
    );

    const falseHits = scored.filter((s) => !s.duplicate && s.similarity >= threshold && !s.refusedBy).sort((x, y) => y.similarity - x.similarity);
    console.log(`\n${Math.min(opts.falseHits, falseHits.length)} of ${falseHits.length} false hits (labelled non-duplicate, served from cache), most similar first — QQP labels are noisy, judge them:`);
    for (const f of falseHits.slice(0, opts.falseHits)) console.log(`  ${f.similarity.toFixed(3)}  ${f.a}\n         ${f.b}`);

    let verified: VerifyResult | null = null;
    if (opts.verifyBound !== undefined) {
      verified = runVerified(scored, opts.verifyBound, opts.verifySample);
      const v = verified;
      console.log(
        `\nVerified mode (bound ${v.bound}, ${v.sample_rate} of servable would-be hits sampled; pairs in order, one neighbourhood; the label stands in for answer agreement): ` +
          `${v.hits} hits, ${v.false_hits} false; precision ${v.precision.toFixed(3)}, recall ${v.recall.toFixed(3)} — the default: ${qqp.tp + qqp.fp} hits, ${qqp.fp} false, recall ${qqp.recall.toFixed(3)}`,
      );
      console.log(
        `  verification: ${v.verify_calls_per_1000.toFixed(1)} model calls per 1,000 lookups (${v.verify_unproven} unproven would-be hits, ${v.verify_sampled} sampled in the serving range); ` +
          `learned threshold at the end ${v.final_threshold ?? 'none'}; verified error the cache reports ${v.reported_error === null ? 'n/a' : v.reported_error.toFixed(4)} on ${v.reported_checked} sampled checks (bound ${v.bound})`,
      );
      console.log(`  ${Math.min(opts.falseHits, v.false_hit_pairs.length)} of ${v.false_hits} false hits in verified mode, most similar first:`);
      for (const f of v.false_hit_pairs.slice(0, opts.falseHits)) console.log(`  ${f.similarity.toFixed(3)}  ${f.a}\n         ${f.b}`);
    }

    const result = {
      precision: round(qqp.precision),
      recall: round(qqp.recall),
      false_hits: qqp.fp,
      pairs: pairs.length,
      threshold,
      llm_paraphrase_recall: paraphrases.length ? round(llm.recall) : null,
      hit_ms_p50: round(timing.hit_ms_p50, 2),
      miss_ms_p50: round(timing.miss_ms_p50, 2),
      embedder: embedder.name,
      true_hits: qqp.tp,
      duplicates: qqp.dups,
      offset: opts.offset,
      hit_ms_p99: round(timing.hit_ms_p99, 2),
      miss_ms_p99: round(timing.miss_ms_p99, 2),
      lookup_us_p50: Math.round(timing.lookup_us_p50),
      index_entries: timing.entries,
      ...(verified
        ? {
            verified_bound: verified.bound,
            verified_precision: round(verified.precision),
            verified_recall: round(verified.recall),
            verified_false_hits: verified.false_hits,
            verified_true_hits: verified.true_hits,
            verified_calls_per_1000: round(verified.verify_calls_per_1000, 1),
            verified_reported_error: verified.reported_error === null ? null : round(verified.reported_error),
            verified_threshold: verified.final_threshold,
          }
        : {}),
    };
    await embedder.close();
    let gateway: Awaited<ReturnType<typeof measureThroughGateway>> | null = null;
    if (opts.gatewayLimit > 0 && opts.embedder === 'onnx' && opts.threshold === undefined) {
      const gwPairs = pairs.slice(0, opts.gatewayLimit);
      const gwLlm = paraphrases.slice(0, opts.gatewayLlmLimit);
      process.stderr.write(`[bench:cache] through the gateway: ${gwPairs.length} pairs, ${gwLlm.length} LLM paraphrases, ${opts.exactRequests} exact-cache timings\n`);
      gateway = await measureThroughGateway({ pairs: gwPairs, llm: gwLlm, modelDir: opts.modelDir, exactRequests: opts.exactRequests, progress: (l) => process.stderr.write(`${l}\n`) });
      console.log(
        `\nThrough the gateway (pairs ${opts.offset}–${opts.offset + gwPairs.length - 1}, embedder ${gateway.embedder}, threshold ${gateway.threshold}): ` +
          `${gateway.hits} hits, ${gateway.false_hits} false; precision ${gateway.precision.toFixed(3)}, recall ${gateway.recall.toFixed(3)}; ` +
          `LLM paraphrases recall ${gateway.llm_recall === null ? 'n/a' : gateway.llm_recall.toFixed(3)} (${gateway.llm_pairs} pairs)`,
      );
      console.log(
        `  semantic hit p50 ${gateway.semantic_hit_ms_p50.toFixed(2)} ms (p99 ${gateway.semantic_hit_ms_p99.toFixed(2)}), miss p50 ${gateway.semantic_miss_ms_p50.toFixed(2)} ms (client-observed, mock vendor answering at once)`,
      );
      console.log(
        `  exact-cache hit: gateway time p50 ${gateway.exact_hit_overhead_ms_p50.toFixed(3)} ms against the floor (a call with no cache) ${gateway.floor_overhead_ms_p50.toFixed(3)} ms: adds ${gateway.exact_hit_adds_ms_p50.toFixed(3)} ms; ` +
          `client-observed ${gateway.exact_hit_ms_p50.toFixed(2)} / ${gateway.floor_ms_p50.toFixed(2)} ms`,
      );
      for (const f of gateway.false_hit_pairs.slice(0, opts.falseHits)) console.log(`  false hit ${f.similarity.toFixed(3)}  ${f.a}\n                   ${f.b}`);
    }
    const full = {
      ...result,
      ...(gateway
        ? {
            gateway_pairs: gateway.pairs,
            gateway_precision: round(gateway.precision),
            gateway_recall: round(gateway.recall),
            gateway_hits: gateway.hits,
            gateway_false_hits: gateway.false_hits,
            gateway_llm_paraphrase_recall: gateway.llm_recall === null ? null : round(gateway.llm_recall),
            gateway_semantic_hit_ms_p50: round(gateway.semantic_hit_ms_p50, 2),
            gateway_semantic_miss_ms_p50: round(gateway.semantic_miss_ms_p50, 2),
            gateway_floor_overhead_ms_p50: round(gateway.floor_overhead_ms_p50, 3),
            gateway_exact_hit_overhead_ms_p50: round(gateway.exact_hit_overhead_ms_p50, 3),
            gateway_exact_hit_adds_ms_p50: round(gateway.exact_hit_adds_ms_p50, 3),
          }
        : {}),
    };
    if (opts.out) writeFileSync(opts.out, JSON.stringify({ ...full, false_hit_pairs: falseHits.map(({ a, b, similarity }) => ({ a, b, similarity })), gateway_false_hit_pairs: gateway?.false_hit_pairs ?? [], verified_false_hit_pairs: verified?.false_hit_pairs ?? [], scored: scored.map(({ similarity, refusedBy, duplicate }) => ({ similarity, refusedBy, duplicate })) }, null, 2));
    console.log(JSON.stringify(full));
  } finally {
    await embedder.close();
  }
}

main().catch((err: unknown) => {
  if (err instanceof UsageError) {
    console.error(err.message);
    process.exit(2);
  }
  console.error(err);
  process.exit(1);
});
