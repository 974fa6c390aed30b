// Guards on who does what to whom: words that trade places around a relation, people in
// another order, a word that sets one thing against another, a preposition on one side only,
// and "like X" (resembling) against "with X" (dealing with).
import { WORDS } from '../words/tables.ts';
import { coordinated, stem } from './lexicon.ts';
import type { TextFeatures } from './types.ts';

/**
 * "A better than B" vs "B better than A": around a relation word (than, to, from, vs, …) or
 * a relation verb (like, beat, …) present in both, a content word moves from the left side
 * to the right and another moves back.
 */
export function swappedRoles(a: TextFeatures, b: TextFeatures): string | undefined {
  const t = transposition(a, b);
  if (t) return t;
  const symmetric = (f: TextFeatures): boolean => [...WORDS.symmetricCues].some((w) => f.wordSet.has(w));
  for (const r of a.content) {
    if (!WORDS.relationWords.has(r) && !WORDS.relationVerbs.has(r)) continue;
    if (WORDS.symmetricMarkers.has(r) && (symmetric(a) || symmetric(b))) continue;
    if (r === 'to' && !(a.words.some((w) => WORDS.directionVerbs.has(w)) && b.words.some((w) => WORDS.directionVerbs.has(w)))) continue;
    const ia = a.content.indexOf(r);
    const ib = b.content.indexOf(r);
    // One occurrence on each side, so "left" and "right" are well defined.
    if (ib < 0 || a.content.lastIndexOf(r) !== ia || b.content.lastIndexOf(r) !== ib) continue;
    const side = (c: string[], from: number, to: number): Set<string> => new Set(c.slice(from, to).filter((w) => !WORDS.relationWords.has(w)));
    const leftA = side(a.content, 0, ia);
    const rightA = side(a.content, ia + 1, a.content.length);
    const leftB = side(b.content, 0, ib);
    const rightB = side(b.content, ib + 1, b.content.length);
    const movedRight = [...leftA].some((w) => rightB.has(w) && !leftB.has(w) && !rightA.has(w));
    const movedLeft = [...rightA].some((w) => leftB.has(w) && !rightB.has(w) && !leftA.has(w));
    if (movedRight && movedLeft) return r;
  }
  return undefined;
}

/**
 * The two word sequences (words that occur in only one of them dropped) are the same but for
 * one or two pairs of words that trade places, with no "and"/"or"/"vs" between them:
 * "Do Indian women find Pakistani men attractive?" vs "Do Pakistani women find Indian men
 * attractive?". Prepositional phrases that move whole ("for BBA in India" / "in India for
 * BBA") are not a transposition, because their prepositions move with them.
 */
function transposition(a: TextFeatures, b: TextFeatures): string | undefined {
  const sa = [...new Set(a.words.map(stem))];
  const sb = [...new Set(b.words.map(stem))];
  const inA = new Set(sa);
  const inB = new Set(sb);
  const x = sa.filter((w) => inB.has(w));
  const y = sb.filter((w) => inA.has(w));
  // Near-identical wording only: at most two words of either question are not in the other.
  if (sa.length - x.length > 2 || sb.length - y.length > 2) return undefined;
  if (x.length !== y.length || x.length < 3) return undefined;
  const diff: number[] = [];
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) diff.push(i);
  if (diff.length !== 2 && diff.length !== 4) return undefined;
  const swaps: string[] = [];
  const used = new Set<number>();
  for (const i of diff) {
    if (used.has(i)) continue;
    const j = diff.find((k) => k !== i && !used.has(k) && x[i] === y[k] && x[k] === y[i]);
    if (j === undefined) return undefined;
    used.add(i).add(j);
    const pronouns = WORDS.personWords.has(x[i]!) && WORDS.personWords.has(x[j]!);
    if (!pronouns && (WORDS.stopwords.has(x[i]!) || WORDS.stopwords.has(x[j]!))) return undefined;
    // The frame between the two stays and holds a content word ("women find", "polite than"):
    // adjacent words trading places is rewording ("apology letter" / "letter … apology").
    const between = x.slice(Math.min(i, j) + 1, Math.max(i, j));
    if (!between.some((w) => !WORDS.stopwords.has(w))) return undefined;
    if (coordinated(sa, x[i]!, x[j]!) || coordinated(sb, x[i]!, x[j]!)) return undefined;
    swaps.push(`${x[i]}<>${x[j]}`);
  }
  return swaps.join(',');
}

/** People who act and are acted on: "someone asked you" vs "you asked someone". */
export function peopleOrder(a: TextFeatures, b: TextFeatures): string | undefined {
  const seq = (f: TextFeatures): string[] => {
    const out: string[] = [];
    for (const w of f.words) if (WORDS.rolePeople.has(w)) out.push(WORDS.roleCanon[w] ?? w);
    return out.filter((w, i) => out.indexOf(w) === i);
  };
  const sa = seq(a);
  const sb = seq(b);
  if (sa.length < 2 || sa.length !== sb.length || !sa.every((w) => sb.includes(w))) return undefined;
  return sa.join('') === sb.join('') ? undefined : `${sa.join('>')}/${sb.join('>')}`;
}

/** A word that sets one thing against another ("against", "except"), on one side only: the question is about something else. */
export function opposingWord(a: TextFeatures, b: TextFeatures): string | undefined {
  for (const w of WORDS.opposing) if (a.wordSet.has(w) !== b.wordSet.has(w)) return w;
  return undefined;
}

/**
 * The same words but for a preposition on one side: "Is Earth a black hole?" / "Is Earth in a
 * black hole?", "an IITian girlfriend" / "an IITian as a girlfriend". (A preposition swapped for
 * another is usually a paraphrase: "books on" / "books about".)
 */
export function prepositionShift(a: TextFeatures, b: TextFeatures): string | undefined {
  const x = a.words.filter((w) => !WORDS.articles.has(w));
  const y = b.words.filter((w) => !WORDS.articles.has(w));
  const [long, short] = x.length >= y.length ? [x, y] : [y, x];
  if (long.length === short.length + 1) {
    for (let i = 0; i < long.length; i++) {
      if (!WORDS.prepositions.has(long[i]!)) continue;
      if (long.slice(0, i).concat(long.slice(i + 1)).join(' ') === short.join(' ')) return `+${long[i]}`;
    }
  }
  return undefined;
}

/**
 * "like X" on one side, another preposition (one that ties a question to a thing) before the
 * same X on the other: "do business with Alibaba" vs "have a business like Alibaba" (dealing
 * with it vs resembling it). After some words "like" is the verb ("I would like", "do you
 * like"), not the preposition.
 */
export function likenedInstead(a: TextFeatures, b: TextFeatures): string | undefined {
  const skipArticle = (words: string[], i: number, step: 1 | -1): string | undefined => {
    const w = words[i];
    return w !== undefined && WORDS.articles.has(w) ? words[i + step] : w;
  };
  for (const [x, y] of [[a, b], [b, a]] as const) {
    for (let i = 1; i < x.words.length - 1; i++) {
      if (x.words[i] !== 'like' || WORDS.likeVerbCues.has(x.words[i - 1]!)) continue;
      const object = skipArticle(x.words, i + 1, 1);
      const j = object === undefined ? -1 : y.words.indexOf(object);
      if (j <= 0) continue;
      const before = skipArticle(y.words, j - 1, -1);
      if (before !== undefined && WORDS.tyingPrepositions.has(before)) return `like/${before}`;
    }
  }
  return undefined;
}
