// Guards on how a question is asked: its question words, its opening word, its modal, the
// tense of its auxiliary, yes/no against wh-, and how many questions it asks.
import { WORDS } from '../words/tables.ts';
import type { TextFeatures } from './types.ts';

/** "How …?" vs "Why …?": both ask a specific question word and they share none. */
export function questionWordMismatch(a: TextFeatures, b: TextFeatures): string | undefined {
  if (a.questionWords.size === 0 || b.questionWords.size === 0) return undefined;
  for (const q of a.questionWords) if (b.questionWords.has(q)) return undefined;
  return `${[...a.questionWords].join('+')}/${[...b.questionWords].join('+')}`;
}

/**
 * The opening question word ("which" = "what"). "What is the best way to …" against "How do
 * I …" counts as a difference too: on qqp_dev such pairs are labelled different often enough
 * that serving them costs more precision than the recall it buys.
 */
export function leadWord(a: TextFeatures, b: TextFeatures): string | undefined {
  const lead = (f: TextFeatures): string | undefined => {
    const w = f.words[0] ?? '';
    return w === 'which' ? 'what' : WORDS.leadWords.includes(w) ? w : undefined;
  };
  const la = lead(a);
  const lb = lead(b);
  return la && lb && la !== lb ? `${la}/${lb}` : undefined;
}

/** Yes/no questions opening on different modals: "Should Netflix…?" (advice) vs "Will Netflix…?" (prediction). */
export function modalMismatch(a: TextFeatures, b: TextFeatures): string | undefined {
  const ma = WORDS.modalClass[a.words[0] ?? ''];
  const mb = WORDS.modalClass[b.words[0] ?? ''];
  if (ma && mb && ma !== mb) return `${a.words[0]}/${b.words[0]}`;
  return undefined;
}

/** The question's auxiliary in another tense: "Does meditation help?" vs "Has meditation helped?", "How does one…" vs "How did you…". */
export function tenseShift(a: TextFeatures, b: TextFeatures): string | undefined {
  const tense = WORDS.tense;
  const aux = (f: TextFeatures): string | undefined => {
    const w0 = f.words[0] ?? '';
    if (tense[w0]) return w0;
    return WORDS.questionWords[w0] || w0 === 'what' || w0 === 'which' ? (tense[f.words[1] ?? ''] ? f.words[1] : undefined) : undefined;
  };
  const xa = aux(a);
  const xb = aux(b);
  return xa && xb && tense[xa] !== tense[xb] ? `${xa}/${xb}` : undefined;
}

/** "Is Jackie Chan humble?" (yes/no) vs "Why is Jackie Chan so humble?" / "How does Google hire…?" (manner). */
export function yesNoVsWh(a: TextFeatures, b: TextFeatures): string | undefined {
  const kind = (f: TextFeatures): string | undefined => {
    const w0 = f.words[0] ?? '';
    if (WORDS.modalClass[w0]) return 'yes-no';
    if (w0 === 'why') return 'why';
    if (w0 === 'how' && WORDS.modalClass[f.words[1] ?? '']) return 'how';
    return undefined;
  };
  const ka = kind(a);
  const kb = kind(b);
  if (ka && kb && ka !== kb && (ka === 'yes-no' || kb === 'yes-no')) return `${ka}/${kb}`;
  return undefined;
}

function countQuestions(f: TextFeatures): number {
  return Math.max(1, f.raw.split(/\?+/).filter((p) => /[\p{L}\p{N}]{2,}/u.test(p)).length);
}

export function questionCount(a: TextFeatures, b: TextFeatures): string | undefined {
  const qa = countQuestions(a);
  const qb = countQuestions(b);
  return qa !== qb ? `${qa}/${qb}` : undefined;
}
