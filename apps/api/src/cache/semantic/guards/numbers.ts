// Numbers in a question: how they are normalised, spelled-out ones read as digits, and the
// two number guards (a different number; the same number with another relation word).
import { WORDS } from '../words/tables.ts';
import type { TextFeatures } from './types.ts';

const ORDINAL_DIGITS = /^(\d+)(?:st|nd|rd|th)$/;

/** "1,000" → "1000", "$5" → "5", "20%" → "20". */
export function normaliseNumber(tok: string): string {
  let t = tok.toLowerCase().replace(/^[$€£₹]/, '').replace(/%$/, '');
  if (/^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/.test(t)) t = t.replace(/,/g, '');
  t = t.replace(/,+$/, '');
  return t;
}

export function sameMultiset(a: string[], b: string[]): boolean {
  if (a.length !== b.length) {
    // Repeats do not matter ("500 and 1000 notes… 500 notes"): compare as sets.
    const sa = new Set(a);
    const sb = new Set(b);
    if (sa.size !== sb.size) return false;
    for (const x of sa) if (!sb.has(x)) return false;
    return true;
  }
  const sa = [...a].sort();
  const sb = [...b].sort();
  return sa.every((x, i) => x === sb[i]);
}

/** Numbers spelled in one question and written in digits in the other still match. */
export function numbersOf(f: TextFeatures): string[] {
  const out: string[] = [];
  for (const n of f.numbers) out.push(ORDINAL_DIGITS.exec(n)?.[1] ?? n);
  for (const w of f.words) {
    for (const part of w.split('-')) {
      const n = WORDS.numberWords[part] ?? WORDS.ordinalWords[part];
      if (n) out.push(n);
    }
  }
  return out;
}

/** The same number with a different relation word right before it ("in 10 years" / "after 10 years"). */
export function numberRelation(a: TextFeatures, b: TextFeatures): string | undefined {
  const rel = (f: TextFeatures): Map<string, string> => {
    const m = new Map<string, string>();
    f.words.forEach((w, i) => {
      if (i === 0 || !/\d/.test(w)) return;
      const prev = f.words[i - 1]!;
      if (WORDS.numberRelations.has(prev)) m.set(normaliseNumber(w), WORDS.relationSynonyms[prev] ?? prev);
    });
    return m;
  };
  const ra = rel(a);
  const rb = rel(b);
  for (const [n, r] of ra) {
    const other = rb.get(n);
    if (other !== undefined && other !== r) return `${r} ${n}/${other} ${n}`;
  }
  return undefined;
}

/** Different numbers on the two sides, or the same ones in another relation. */
export function numbersGuard(a: TextFeatures, b: TextFeatures): string | undefined {
  return sameMultiset(numbersOf(a), numbersOf(b)) ? numberRelation(a, b) : `${numbersOf(a).join(',')}/${numbersOf(b).join(',')}`;
}
