// Guards on what a question is about: opposite words, another name, another person asking,
// a degree on one side only, and content words added or swapped.
import { WORDS } from '../words/tables.ts';
import { contentDiff, sameWord, stem } from './lexicon.ts';
import type { TextFeatures } from './types.ts';

/** One pole of an antonym pair against the other, or one pole against both ("advantages" vs "advantages and disadvantages"). */
export function antonymSwap(a: TextFeatures, b: TextFeatures): string | undefined {
  for (const [pos, neg] of WORDS.antonyms) {
    const aP = pos.some((w) => a.wordSet.has(w));
    const aN = neg.some((w) => a.wordSet.has(w));
    const bP = pos.some((w) => b.wordSet.has(w));
    const bN = neg.some((w) => b.wordSet.has(w));
    if ((aP || aN) && (bP || bN) && (aP !== bP || aN !== bN)) return `${pos[0]}/${neg[0]}`;
  }
  return undefined;
}

export function entityMismatch(a: TextFeatures, b: TextFeatures): string | undefined {
  const missing = (x: TextFeatures, y: TextFeatures): string | undefined => x.entities.find((e) => !mentions(y, e));
  const inA = missing(a, b);
  const inB = missing(b, a);
  // A different name on each side ("Trump" vs "Clinton"); an extra qualifier on one side
  // alone ("Donald Trump" vs "Trump") is left to the similarity threshold.
  if (inA && inB) return `${inA}/${inB}`;
  return undefined;
}

function mentions(f: TextFeatures, entity: string): boolean {
  if (f.wordSet.has(entity)) return true;
  const e = stem(entity);
  if (f.words.some((w) => sameWord(stem(w), e))) return true;
  const joined = f.words.join(' ');
  return joined.includes(entity) || joined.replace(/ /g, '').includes(entity.replace(/[\s.-]/g, ''));
}

/**
 * Whose question it is: first person ("How do I …", "my mother"), second ("your mother"), or
 * nobody's. Tuned on qqp_dev: "How do I test an Android app?" and "How do you test your
 * Android app?" are labelled different questions often enough that a change of person is a miss.
 */
export function personShift(a: TextFeatures, b: TextFeatures): string | undefined {
  const p = (f: TextFeatures): string => {
    const first = WORDS.firstPerson.some((w) => f.wordSet.has(w));
    const second = WORDS.secondPerson.some((w) => f.wordSet.has(w));
    return first && !second ? '1' : second && !first ? '2' : first && second ? '12' : '0';
  };
  const pa = p(a);
  const pb = p(b);
  // First against second person, or first person against nobody ("good cigars for me" / "good cigars").
  if ((pa === '1' && pb === '2') || (pa === '2' && pb === '1') || (pa === '0' && pb === '1') || (pa === '1' && pb === '0')) return `${pa}/${pb}`;
  // Second person against nobody, in questions: "your favourite horror movie?" asks for an opinion,
  // "the best horror movies?" does not. (In statements "you" is mostly generic: "you can set …".)
  const asks = (f: TextFeatures) => /\?\s*$/.test(f.raw);
  return ((pa === '2' && pb === '0') || (pa === '0' && pb === '2')) && asks(a) && asks(b) ? `${pa}/${pb}` : undefined;
}

/** Superlatives that carry the degree in other words ("the most popular" / "the top"; "least" / "minimum"). */
const SUPERLATIVE = new RegExp(String.raw`^(?:${WORDS.superlatives.join('|')}|\w+iest)$`);

/**
 * A word that grades what it qualifies, on one side only: "What do women do that men hate?" vs
 * "… that men hate the most?", "built for acoustics" vs "built for better acoustics", "your
 * prized possession" vs "your most prized possession". Exempt when the other side grades with
 * a superlative instead.
 */
export function degreeShift(a: TextFeatures, b: TextFeatures): string | undefined {
  for (const w of WORDS.degreeWords) {
    if (a.wordSet.has(w) === b.wordSet.has(w)) continue;
    const [has, lacks] = a.wordSet.has(w) ? [a, b] : [b, a];
    if (lacks.words.some((v) => SUPERLATIVE.test(v) && !has.wordSet.has(v))) continue;
    return w;
  }
  return undefined;
}

/** One question is the other plus extra content words ("… buy steroids" vs "… buy steroids online"). */
export function addedQualifier(a: TextFeatures, b: TextFeatures): string | undefined {
  const { onlyA, onlyB } = contentDiff(a, b);
  if (onlyA.length > 0 && onlyB.length === 0) return `+${onlyA.join(',')}`;
  if (onlyB.length > 0 && onlyA.length === 0) return `+${onlyB.join(',')}`;
  return undefined;
}

/** One content word swapped for another. */
export function substitution(a: TextFeatures, b: TextFeatures): string | undefined {
  const { onlyA, onlyB } = contentDiff(a, b);
  return onlyA.length === 1 && onlyB.length === 1 ? `${onlyA[0]}/${onlyB[0]}` : undefined;
}
