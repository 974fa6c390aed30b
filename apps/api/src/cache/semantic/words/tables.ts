// The guards' word tables: the JSON files beside this one, read and checked once, when the
// module loads. A file that is missing, is not JSON, or is not of its shape stops the gateway
// at boot with the file, the key and what is wrong: a guard never runs on a table it half read.
// What each table is for is said where a guard uses it (../guards/*.ts) and in ../README.md.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/** The guards compare lower-cased tokens: a word written otherwise would never match. */
const word = z
  .string()
  .min(1)
  .refine((w) => w === w.trim().toLowerCase(), { message: 'must be lower-case, with no space around it (the guards compare lower-cased tokens)' });

const noRepeats = (list: readonly string[]) => new Set(list).size === list.length;
const words = z.array(word).min(1).refine(noRepeats, { message: 'lists a word twice: remove the repeat' });

/** word → what it stands for ("twenty" → "20"). */
const wordMap = z.record(word, z.string().min(1));

/** class → its words, read as word → class ("will": ["will", "would"] gives would → will). */
const groups = z.record(word, words).refine((g) => noRepeats(Object.values(g).flat()), { message: 'puts a word in two groups: keep it in one' });

const files = {
  'antonyms.json': z.object({ pairs: z.array(z.tuple([words, words])).min(1) }).strict(),
  'function-words.json': z.object({ stopwords: words, soft: words, articles: words, prepositions: words, coordinators: words, sentenceCommon: words }).strict(),
  'negation.json': z.object({ negations: words, notNegating: words }).strict(),
  'relations.json': z
    .object({
      relationWords: words,
      symmetricMarkers: words,
      symmetricCues: words,
      directionVerbs: words,
      relationVerbs: words,
      opposing: words,
      tyingPrepositions: words,
      likeVerbCues: words,
    })
    .strict(),
  'numbers.json': z.object({ numberWords: wordMap, ordinalWords: wordMap, numberRelations: words, relationSynonyms: groups }).strict(),
  'questions.json': z.object({ questionWords: groups, leadWords: words, modalClass: groups, tense: groups }).strict(),
  'people.json': z.object({ personWords: words, rolePeople: words, roleCanon: groups, firstPerson: words, secondPerson: words }).strict(),
  'degree.json': z.object({ degreeWords: words, superlatives: words }).strict(),
  'inflections.json': z.object({ irregularPlurals: wordMap }).strict(),
  /** Alternatives of a regular expression ("screen\\s?shot"), joined with "|" by the deictic guard. */
  'pointers.json': z.object({ pointedNouns: words }).strict(),
} as const;

type FileName = keyof typeof files;
type Parsed<F extends FileName> = z.infer<(typeof files)[F]>;

export class WordTableError extends Error {
  override name = 'WordTableError';
}

function read<F extends FileName>(dir: string, file: F): Parsed<F> {
  const path = join(dir, file);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new WordTableError(`semantic cache word table ${path} cannot be read as JSON: ${String(err)}`);
  }
  const parsed = files[file].safeParse(json);
  if (parsed.success) return parsed.data as Parsed<F>;
  const lines = parsed.error.issues.map((i) => (i.code === 'unrecognized_keys' ? `unknown key ${i.keys.join(', ')}: remove it or check its spelling` : `${i.path.join('.') || '(top)'}: ${i.message}`));
  throw new WordTableError(`semantic cache word table ${path} is not of its shape:\n  ${lines.join('\n  ')}`);
}

/** word → class, from class → words; a plain object, as the guards index it by token. */
function invert(g: Record<string, readonly string[]>): Readonly<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [cls, members] of Object.entries(g)) for (const w of members) out[w] = cls;
  return out;
}

export type Pair = readonly [readonly string[], readonly string[]];

export interface WordTables {
  /** Opposite poles, each side with its inflections; the first pair that matches names the refusal. */
  antonyms: readonly Pair[];
  stopwords: ReadonlySet<string>;
  /** Words whose presence on one side only does not change what is asked. */
  soft: ReadonlySet<string>;
  articles: ReadonlySet<string>;
  prepositions: ReadonlySet<string>;
  coordinators: ReadonlySet<string>;
  /** Capitalised words that are not names ("I'm", "Hello"). */
  sentenceCommon: ReadonlySet<string>;
  negations: ReadonlySet<string>;
  /** Phrases that ask both ways ("whether or not"): not a negation. */
  notNegating: readonly string[];
  relationWords: ReadonlySet<string>;
  symmetricMarkers: ReadonlySet<string>;
  symmetricCues: ReadonlySet<string>;
  directionVerbs: ReadonlySet<string>;
  relationVerbs: ReadonlySet<string>;
  /** In order: the first one on one side only names the refusal. */
  opposing: ReadonlySet<string>;
  tyingPrepositions: ReadonlySet<string>;
  likeVerbCues: ReadonlySet<string>;
  numberWords: Readonly<Record<string, string>>;
  ordinalWords: Readonly<Record<string, string>>;
  numberRelations: ReadonlySet<string>;
  relationSynonyms: Readonly<Record<string, string>>;
  questionWords: Readonly<Record<string, string>>;
  leadWords: readonly string[];
  modalClass: Readonly<Record<string, string>>;
  tense: Readonly<Record<string, string>>;
  personWords: ReadonlySet<string>;
  rolePeople: ReadonlySet<string>;
  roleCanon: Readonly<Record<string, string>>;
  firstPerson: readonly string[];
  secondPerson: readonly string[];
  /** In order: the first one on one side only names the refusal. */
  degreeWords: readonly string[];
  superlatives: readonly string[];
  irregularPlurals: Readonly<Record<string, string>>;
  pointedNouns: readonly string[];
}

/** Reads and checks every table in `dir` (the folder of this file by default). */
export function loadWordTables(dir: string = import.meta.dirname): WordTables {
  const antonyms = read(dir, 'antonyms.json');
  const fw = read(dir, 'function-words.json');
  const neg = read(dir, 'negation.json');
  const rel = read(dir, 'relations.json');
  const num = read(dir, 'numbers.json');
  const q = read(dir, 'questions.json');
  const people = read(dir, 'people.json');
  const degree = read(dir, 'degree.json');
  const infl = read(dir, 'inflections.json');
  const ptr = read(dir, 'pointers.json');
  return {
    antonyms: antonyms.pairs,
    stopwords: new Set(fw.stopwords),
    soft: new Set(fw.soft),
    articles: new Set(fw.articles),
    prepositions: new Set(fw.prepositions),
    coordinators: new Set(fw.coordinators),
    sentenceCommon: new Set(fw.sentenceCommon),
    negations: new Set(neg.negations),
    notNegating: neg.notNegating,
    relationWords: new Set(rel.relationWords),
    symmetricMarkers: new Set(rel.symmetricMarkers),
    symmetricCues: new Set(rel.symmetricCues),
    directionVerbs: new Set(rel.directionVerbs),
    relationVerbs: new Set(rel.relationVerbs),
    opposing: new Set(rel.opposing),
    tyingPrepositions: new Set(rel.tyingPrepositions),
    likeVerbCues: new Set(rel.likeVerbCues),
    numberWords: num.numberWords,
    ordinalWords: num.ordinalWords,
    numberRelations: new Set(num.numberRelations),
    relationSynonyms: invert(num.relationSynonyms),
    questionWords: invert(q.questionWords),
    leadWords: q.leadWords,
    modalClass: invert(q.modalClass),
    tense: invert(q.tense),
    personWords: new Set(people.personWords),
    rolePeople: new Set(people.rolePeople),
    roleCanon: invert(people.roleCanon),
    firstPerson: people.firstPerson,
    secondPerson: people.secondPerson,
    degreeWords: degree.degreeWords,
    superlatives: degree.superlatives,
    irregularPlurals: infl.irregularPlurals,
    pointedNouns: ptr.pointedNouns,
  };
}

/** The tables, loaded once. */
export const WORDS: WordTables = loadWordTables();
