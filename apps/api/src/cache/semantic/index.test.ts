// The semantic cache's matching core: tokenizer, MiniLM embeddings, guards, index, fallback.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EmbedderOverloadedError,
  admissible,
  createEmbedder,
  DEFAULT_THRESHOLD,
  effectiveThreshold,
  LexicalEmbedder,
  OnnxMiniLM,
  scopeKey,
  SemanticIndex,
  WordPieceTokenizer,
} from './index.ts';

const repoRoot = join(import.meta.dirname, '..', '..', '..', '..', '..');
const modelDir = join(repoRoot, '..', 'shared', 'models', 'all-MiniLM-L6-v2');

function vec(...xs: number[]): Float32Array {
  return Float32Array.from(xs);
}

function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

describe('WordPiece tokenizer', () => {
  const tok = WordPieceTokenizer.fromFile(join(modelDir, 'tokenizer.json'));

  it('encodes the reference sentence to the BERT uncased ids, wrapped in [CLS] and [SEP]', () => {
    expect(tok.encode('This is an example sentence').ids).toEqual([101, 2023, 2003, 2019, 2742, 6251, 102]);
  });

  it('lowercases, strips accents and splits punctuation off words', () => {
    expect(tok.basicTokens("Héllo, WÖRLD! don't")).toEqual(['hello', ',', 'world', '!', 'don', "'", 't']);
  });

  it('splits an unknown word greedily into the longest pieces with ## continuations', () => {
    const pieces = (word: string): string[] => tok.encode(word).ids.slice(1, -1).map((id) => [...tok.vocab].find(([, v]) => v === id)![0]);
    // Longest prefix first: "una" is in the vocabulary, so not "un" + "##aff" + "##able".
    expect(pieces('unaffable')).toEqual(['una', '##ffa', '##ble']);
    expect(pieces('tokenizer')).toEqual(['token', '##izer']);
  });

  it('maps a word with no possible pieces to [UNK] and truncates to 256 tokens', () => {
    expect(tok.encode('\u{1F9EA}').ids).toEqual([101, tok.unkId, 102]);
    const long = tok.encode('word '.repeat(400)).ids;
    expect(long).toHaveLength(256);
    expect(long[0]).toBe(101);
    expect(long[255]).toBe(102);
  });
});

describe('OnnxMiniLM embedder', () => {
  let embedder: OnnxMiniLM;
  beforeAll(async () => {
    embedder = new OnnxMiniLM({ modelDir });
    await embedder.ready;
  });
  afterAll(async () => {
    await embedder.close();
  });

  it('embeds the reference sentence to the published all-MiniLM-L6-v2 values', async () => {
    const [v] = await embedder.embed(['This is an example sentence']);
    expect(embedder.dims).toBe(384);
    expect(v).toHaveLength(384);
    const expected = [0.06766, 0.06356, 0.04873, 0.07941, 0.03745];
    expected.forEach((x, i) => expect(v![i]).toBeCloseTo(x, 4));
    expect(cosine(v!, v!)).toBeCloseTo(1, 5);
  });

  it('gives the same vector alone and inside a batch of concurrent callers', async () => {
    const texts = ['How do I lose weight fast?', 'What is the capital of France?', 'This is an example sentence', 'a'];
    const [alone] = await embedder.embed([texts[0]!]);
    const batched = await Promise.all([embedder.embed(texts.slice(0, 2)), embedder.embed(texts.slice(2))]);
    expect(cosine(alone!, batched[0][0]!)).toBeCloseTo(1, 5);
    expect(batched.flat()).toHaveLength(4);
  });

  it('puts a paraphrase closer than an unrelated question', async () => {
    const [a, b, c] = await embedder.embed(['How can I lose weight quickly?', 'How do I lose weight fast?', 'What is the capital of France?']);
    expect(cosine(a!, b!)).toBeGreaterThan(0.85);
    expect(cosine(a!, c!)).toBeLessThan(0.3);
  });

  it('refuses at once what would overfill its queue, and embeds what fits', async () => {
    const small = new OnnxMiniLM({ modelDir, maxBatch: 2, maxQueue: 4 });
    await small.ready;
    await expect(small.embed(['a', 'b', 'c', 'd', 'e'])).rejects.toBeInstanceOf(EmbedderOverloadedError);
    const running = small.embed(['a', 'b']); // one batch goes to the worker at once
    const waiting = small.embed(['c', 'd', 'e', 'f']); // the queue is full while it runs
    await expect(small.embed(['g'])).rejects.toThrow(/overloaded: 4 texts already waiting/);
    expect(await running).toHaveLength(2);
    expect(await waiting).toHaveLength(4);
    expect(await small.embed(['g'])).toHaveLength(1);
    await small.close();
  });

  it('refuses to load when the directory has no model', async () => {
    const missing = new OnnxMiniLM({ modelDir: join(repoRoot, 'no-such-model-dir') });
    await expect(missing.ready).rejects.toThrow(/no ONNX graph/);
    await expect(missing.embed(['x'])).rejects.toThrow();
    await missing.close();
  });
});

describe('guards on hard negatives', () => {
  it('refuses the opposite goal: lose weight vs gain weight', () => {
    expect(admissible('How do I lose weight fast?', 'How do I gain weight fast?')).toEqual({ ok: false, reason: 'antonym:gain/lose' });
  });

  it('refuses versions that trade places around "than"', () => {
    const v = admissible('Is Python 3.11 faster than 3.12?', 'Is Python 3.12 faster than 3.11?');
    expect(v.ok).toBe(false);
    expect(v.reason).toMatch(/^swapped-roles/);
  });

  it('never serves a question that points at content it does not carry, even to itself', () => {
    const v = admissible('Explain the following program', 'Explain the following program');
    expect(v.ok).toBe(false);
    expect(v.reason).toMatch(/^deictic/);
    expect(admissible('What does this image show?', 'What does this image show?').ok).toBe(false);
    expect(admissible('See the attached file, what is wrong?', 'What is wrong in the attached file?').ok).toBe(false);
  });

  it('refuses different numbers, versions and identifiers', () => {
    expect(admissible('How do I learn deep learning in 1 month?', 'How do I learn deep learning in 2 months?').reason).toMatch(/^numbers/);
    expect(admissible('What is new in Node 22?', 'What is new in Node 24?').reason).toMatch(/^numbers/);
    expect(admissible('How do I fix a TypeError in parse_args()?', 'How do I fix a TypeError in parse_json()?').reason).toMatch(/^identifiers/);
  });

  it('refuses a negation on one side only', () => {
    expect(admissible("Why don't cats like water?", 'Why do cats like water?').reason).toMatch(/^negation/);
    expect(admissible('Can I use React without Node?', 'Can I use React with Node?').reason).toMatch(/^negation/);
    expect(admissible('Should cow slaughter be banned in India?', 'Should cow slaughter be banned in India or not?').reason ?? '').not.toMatch(/^negation/);
  });

  it('refuses swapped roles and different names', () => {
    expect(admissible('How do I convert PDF to Word?', 'How do I convert Word to PDF?').reason).toMatch(/^swapped-roles/);
    expect(admissible('Do Indian women find Pakistani men attractive?', 'Do Pakistani women find Indian men attractive?').reason).toMatch(/^swapped-roles/);
    expect(admissible('What is the capital of France?', 'What is the capital of Germany?').reason).toMatch(/^entity/);
  });

  it('refuses a different question word', () => {
    expect(admissible('Why is the sky blue?', 'How is the sky blue?').reason).toMatch(/^question-word/);
    expect(admissible('Who wrote Hamlet?', 'When was Hamlet written?').reason).toMatch(/^question-word/);
  });

  it('refuses the same number in another relation, and people who trade roles', () => {
    expect(admissible('What will be the most in demand jobs in 10 years?', 'What will be the most in demand jobs after 10 years?').reason).toMatch(/^numbers:in 10\/after 10/);
    expect(admissible('What is the weirdest question someone has ever asked you?', 'What is the weirdest question you have asked someone?').reason).toMatch(/^swapped-roles/);
    expect(admissible('What is the best Kirby strategy?', 'What is the best strategy against Kirby?').reason).toBe('swapped-roles:against');
    expect(admissible('Is Earth a black hole?', 'Is Earth in a black hole?').reason).toBe('swapped-roles:+in');
    expect(admissible('How do I do business with Alibaba?', 'How do I have a business like Alibaba?').reason).toBe('swapped-roles:like/with');
    expect(admissible('What are some other sites like Quora?', 'What are some similar websites to Quora?').ok).toBe(true);
  });

  it('refuses a degree on one side only, unless the other grades with a superlative', () => {
    expect(admissible('What do women do that men hate?', 'What is something that women do that men hate the most?').reason).toBe('degree:most');
    expect(admissible('How are concert halls built for acoustics?', 'How are concert halls built for better acoustics?').reason).toBe('degree:better');
    expect(admissible('What is your most prized possession?', 'What is your prized possession?').reason).toBe('degree:most');
    // The degree is on both sides, in other words (the substituted word is the content guard's call).
    expect(admissible('Which sorting algorithm makes the least number of swaps?', 'Which sorting algorithm makes the minimum number of swaps?').reason).not.toMatch(/^degree/);
  });

  it('refuses another tense of the question, and an opinion asked of "you" against a general question', () => {
    expect(admissible('Does meditation really help?', 'Has meditation really helped?').reason).toMatch(/^question-form:does\/has/);
    expect(admissible('How does one conquer procrastination?', 'How did you conquer procrastination?').ok).toBe(false);
    expect(admissible('Which is your favorite horror movie?', 'Which is the best horror movie?').reason).toMatch(/^person:2\/0/);
  });

  it('admits plain paraphrases', () => {
    expect(admissible('How do I learn Python?', 'How can I learn Python?')).toEqual({ ok: true });
    expect(admissible('How can I lose weight quickly?', 'How do I lose weight fast?')).toEqual({ ok: true });
    expect(admissible('What is the best laptop for programming?', 'Which laptop is best for programming?')).toEqual({ ok: true });
    expect(admissible('What is the difference between a virus and bacteria?', 'What is the difference between bacteria and a virus?')).toEqual({ ok: true });
  });
});

describe('semantic index', () => {
  const a = vec(1, 0, 0);
  const nearA = vec(0.96, 0.28, 0); // cosine 0.96 with a
  const q = 'How do I reset my password?';

  it('never returns an entry of another key', () => {
    const index = new SemanticIndex({ threshold: 0.9 });
    index.add(scopeKey('tenant-1', 'step'), { id: 'one', vector: a, text: q });
    expect(index.lookup(scopeKey('tenant-2', 'step'), a, q)).toBeNull();
    expect(index.lookup(scopeKey('tenant-1', 'other-step'), a, q)).toBeNull();
    expect(index.lookup(scopeKey('tenant-1', 'step'), a, q)).toEqual({ id: 'one', similarity: expect.closeTo(1, 5) });
    expect(scopeKey('a:b', 'c')).not.toBe(scopeKey('a', 'b:c'));
  });

  it('honours a raised threshold and ignores a lower one', () => {
    const index = new SemanticIndex({ threshold: 0.9 });
    index.add('k', { id: 'one', vector: a, text: q });
    expect(index.lookup('k', nearA, q)?.id).toBe('one');
    expect(index.lookup('k', nearA, q, 0.97)).toBeNull();
    const far = vec(0.8, 0.6, 0); // cosine 0.8
    expect(index.lookup('k', far, q, 0.5)).toBeNull();
    expect(effectiveThreshold(0.94, 0.5)).toBe(0.94);
    expect(DEFAULT_THRESHOLD).toBe(0.94);
    expect(effectiveThreshold(0.94, 0.97)).toBe(0.97);
    expect(effectiveThreshold(0.94, undefined)).toBe(0.94);
    expect(effectiveThreshold(0.94, Number.NaN)).toBe(0.94);
    expect(effectiveThreshold(0.94, 2)).toBe(1);
    expect(DEFAULT_THRESHOLD).toBeGreaterThan(0.9);
  });

  it('applies the guards to the candidates above the threshold, best first', () => {
    const index = new SemanticIndex({ threshold: 0.9 });
    index.add('k', { id: 'gain', vector: a, text: 'How do I gain weight fast?' });
    index.add('k', { id: 'lose', vector: nearA, text: 'How can I lose weight quickly?' });
    const { hit, rejected } = index.explain('k', a, 'How do I lose weight fast?');
    expect(hit?.id).toBe('lose');
    expect(rejected.map((r) => [r.id, r.verdict.reason])).toEqual([['gain', 'antonym:gain/lose']]);
  });

  it('removes entries and evicts the least recently used beyond the bound', () => {
    const index = new SemanticIndex({ threshold: 0.9, maxEntriesPerKey: 2 });
    const b = vec(0, 1, 0);
    const c = vec(0, 0, 1);
    index.add('k', { id: 'a', vector: a, text: 'What is alpha?' });
    index.add('k', { id: 'b', vector: b, text: 'What is beta?' });
    expect(index.lookup('k', a, 'What is alpha?')?.id).toBe('a'); // a is now the most recent
    index.add('k', { id: 'c', vector: c, text: 'What is gamma?' }); // evicts b
    expect(index.size('k')).toBe(2);
    expect(index.lookup('k', b, 'What is beta?')).toBeNull();
    expect(index.lookup('k', a, 'What is alpha?')?.id).toBe('a');
    expect(index.remove('k', 'a')).toBe(true);
    expect(index.lookup('k', a, 'What is alpha?')).toBeNull();
    expect(() => index.add('k', { id: 'd', vector: vec(1, 0), text: 'x' })).toThrow(/dimensions/);
  });
});

describe('lexical fallback', () => {
  it('is used when no model loads, and embeds', async () => {
    const missing = join(repoRoot, 'no-such-model-dir');
    expect(existsSync(missing)).toBe(false);
    const reasons: [string, string][] = [];
    const embedder = await createEmbedder({ modelDir: missing, packaged: false, onFallback: (r, next) => reasons.push([r, next]) });
    try {
      expect(embedder).toBeInstanceOf(LexicalEmbedder);
      expect(embedder.source).toBe('built-in');
      expect(reasons).toHaveLength(1);
      expect(reasons[0]![0]).toMatch(/did not load/);
      expect(reasons[0]![1]).toBe('lexical fallback');
      const [x, y, z] = await embedder.embed(['How do I reset my password?', 'How do I reset my password', 'What is the capital of France?']);
      expect(x).toHaveLength(embedder.dims);
      expect(cosine(x!, x!)).toBeCloseTo(1, 5);
      expect(cosine(x!, y!)).toBeGreaterThan(0.95);
      expect(cosine(x!, z!)).toBeLessThan(0.5);
      const index = new SemanticIndex({ threshold: 0.92 });
      index.add('k', { id: 'pw', vector: x!, text: 'How do I reset my password?' });
      expect(index.lookup('k', y!, 'How do I reset my password')?.id).toBe('pw');
      expect(index.lookup('k', z!, 'What is the capital of France?')).toBeNull();
    } finally {
      await embedder.close();
    }
  });

  it('is not used when only the model directory fails: the packaged model takes over, and says why', async () => {
    const reasons: [string, string][] = [];
    const embedder = await createEmbedder({ modelDir: join(repoRoot, 'no-such-model-dir'), onFallback: (r, next) => reasons.push([r, next]) });
    try {
      expect(embedder).toBeInstanceOf(OnnxMiniLM);
      expect(embedder.source).toBe('packaged');
      expect(reasons).toHaveLength(1);
      expect(reasons[0]![0]).toMatch(/did not load from .*no-such-model-dir/);
      expect(reasons[0]![1]).toBe('packaged model');
    } finally {
      await embedder.close();
    }
  });
});
