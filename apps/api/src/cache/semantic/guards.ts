// Guards: cheap, pure checks that veto a cosine match between two questions that look
// alike but ask different things (hard negatives). A semantic-cache hit needs BOTH a
// similarity above the threshold and `admissible(query, cached).ok`.
//
// Each guard is a precision device: it may turn away a true paraphrase (a cache miss
// costs one upstream call), but should rarely let a different question through (a false
// hit serves a wrong answer). The guards live in guards/, one file per kind of difference;
// the word tables they read are data, words/*.json, loaded once by words/tables.ts.
import { analyze } from './guards/analyze.ts';
import { antonymSwap, addedQualifier, degreeShift, entityMismatch, personShift, substitution } from './guards/meaning.ts';
import { numbersGuard, sameMultiset } from './guards/numbers.ts';
import { leadWord, modalMismatch, questionCount, questionWordMismatch, tenseShift, yesNoVsWh } from './guards/question-form.ts';
import { likenedInstead, opposingWord, peopleOrder, prepositionShift, swappedRoles } from './guards/roles.ts';
import type { Guard, TextFeatures, Verdict } from './guards/types.ts';

export { analyze } from './guards/analyze.ts';
export { contentDiff, sameWord, stem } from './guards/lexicon.ts';
export type { Guard, TextFeatures, Verdict } from './guards/types.ts';

/** The guards, cheapest and most decisive first. */
export const GUARDS: readonly Guard[] = [
  { name: 'deictic', check: (a, b) => a.deictic ?? b.deictic },
  { name: 'numbers', check: numbersGuard },
  { name: 'identifiers', check: (a, b) => (sameMultiset(a.identifiers, b.identifiers) ? undefined : `${a.identifiers.join(',')}/${b.identifiers.join(',')}`) },
  { name: 'negation', check: (a, b) => (a.negated === b.negated ? undefined : a.negated ? 'first' : 'second') },
  { name: 'antonym', check: antonymSwap },
  { name: 'question-word', check: (a, b) => questionWordMismatch(a, b) ?? leadWord(a, b) },
  { name: 'question-form', check: (a, b) => modalMismatch(a, b) ?? tenseShift(a, b) ?? yesNoVsWh(a, b) ?? questionCount(a, b) },
  { name: 'swapped-roles', check: (a, b) => swappedRoles(a, b) ?? peopleOrder(a, b) ?? opposingWord(a, b) ?? prepositionShift(a, b) ?? likenedInstead(a, b) },
  { name: 'entity', check: entityMismatch },
  { name: 'person', check: personShift },
  { name: 'degree', check: degreeShift },
  { name: 'content', check: (a, b) => addedQualifier(a, b) ?? substitution(a, b) },
];

/** Guard verdict on two analysed texts. */
export function admissibleFeatures(a: TextFeatures, b: TextFeatures): Verdict {
  for (const g of GUARDS) {
    const why = g.check(a, b);
    if (why !== undefined) return { ok: false, reason: why ? `${g.name}:${why}` : g.name };
  }
  return { ok: true };
}

/** May a cached answer to `b` be served for question `a` (or vice versa)? Symmetric. */
export function admissible(a: string, b: string): Verdict {
  return admissibleFeatures(analyze(a), analyze(b));
}
