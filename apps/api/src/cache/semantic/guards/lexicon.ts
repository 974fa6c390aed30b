// When two words are the same word: light stemming, inflection, derivation, a one-letter typo,
// or the same side of the antonym table; and which content words of one question have no
// counterpart in the other.
import { WORDS } from '../words/tables.ts';
import type { TextFeatures } from './types.ts';

/** Light suffix stripping: plural, -ing, -ed, -ly, final -e ("making" / "make" → "mak"). */
export function stem(w: string): string {
  const irregular = WORDS.irregularPlurals[w];
  if (irregular) return irregular;
  let s = w.replace(/'s$/, '');
  if (s.length > 4 && s.endsWith('ies')) s = `${s.slice(0, -3)}y`;
  else if (s.length > 3 && s.endsWith('s') && !/(?:ss|us|is)$/.test(s)) s = s.slice(0, -1);
  if (s.length > 5 && s.endsWith('ing')) s = s.slice(0, -3);
  else if (s.length > 4 && s.endsWith('ed')) s = s.slice(0, -2);
  else if (s.length > 4 && s.endsWith('ly')) s = s.slice(0, -2);
  if (s.length > 3 && s.endsWith('e')) s = s.slice(0, -1);
  return s;
}

/** Same word up to inflection, derivation sharing a long stem, or a one-letter typo. */
export function sameWord(x: string, y: string): boolean {
  if (x === y) return true;
  let p = 0;
  while (p < x.length && p < y.length && x[p] === y[p]) p++;
  const short = Math.min(x.length, y.length);
  const long = Math.max(x.length, y.length);
  if (p >= 4 && p === short) return true; // exam / examination, japan / japanese
  if (p >= 6 && p >= 0.7 * long) return true; // electricity / electrical
  return short >= 6 && damerau1(x, y);
}

/** Edit distance (with adjacent transposition) at most 1. */
function damerau1(x: string, y: string): boolean {
  if (Math.abs(x.length - y.length) > 1) return false;
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  if (x.length === y.length) {
    if (x.slice(i + 1) === y.slice(i + 1)) return true;
    return x[i] === y[i + 1] && x[i + 1] === y[i] && x.slice(i + 2) === y.slice(i + 2);
  }
  return x.length > y.length ? x.slice(i + 1) === y.slice(i) : x.slice(i) === y.slice(i + 1);
}

/** Stemmed word → index of the antonym-table side it is on ("quick" and "fast" share one). */
let poles: Map<string, number> | undefined;

function samePole(x: string, y: string): boolean {
  if (!poles) {
    const m = new Map<string, number>();
    WORDS.antonyms.forEach(([pos, neg], i) => {
      for (const w of pos) m.set(stem(w), 2 * i);
      for (const w of neg) m.set(stem(w), 2 * i + 1);
    });
    poles = m;
  }
  const px = poles.get(x);
  return px !== undefined && px === poles.get(y);
}

/**
 * Each question's content words (distinct stems: no stopwords, relation words, soft words,
 * negations or numbers), and those with no counterpart (same word, inflection, typo, or the
 * same side of the antonym table) in the other.
 */
export function contentDiff(a: TextFeatures, b: TextFeatures): { a: string[]; b: string[]; onlyA: string[]; onlyB: string[] } {
  const bag = (f: TextFeatures): string[] => [
    ...new Set(f.content.filter((w) => !WORDS.relationWords.has(w) && !WORDS.soft.has(w) && !WORDS.negations.has(w.replace(/'/g, '')) && !/\d/.test(w)).map(stem)),
  ];
  const ca = bag(a);
  const cb = bag(b);
  const match = (w: string, v: string): boolean => sameWord(w, v) || samePole(w, v);
  return { a: ca, b: cb, onlyA: ca.filter((w) => !cb.some((v) => match(w, v))), onlyB: cb.filter((w) => !ca.some((v) => match(w, v))) };
}

/** "A or B", "A and B", "A vs B": the two stand side by side, order does not matter. */
export function coordinated(words: string[], p: string, q: string): boolean {
  const i = words.indexOf(p);
  const j = words.indexOf(q);
  if (i < 0 || j < 0) return false;
  return words.slice(Math.min(i, j) + 1, Math.max(i, j)).some((w) => WORDS.coordinators.has(w));
}
