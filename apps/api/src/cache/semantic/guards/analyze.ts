// Feature extraction: a text's words, numbers, identifiers, negation, pointers to content it
// does not carry, names, question words and content words, read once per text.
import { WORDS } from '../words/tables.ts';
import { normaliseNumber } from './numbers.ts';
import type { TextFeatures } from './types.ts';

const NON_NEGATING = new RegExp(String.raw`\b(?:${WORDS.notNegating.map((p) => p.split(' ').join(String.raw`\s+`)).join('|')})\b`, 'g');

const POINTED_NOUNS = WORDS.pointedNouns.join('|');

/** Phrases that point at content the question itself does not carry. */
const DEICTIC = new RegExp(
  [
    String.raw`\b(?:the|this|these|that)\s+(?:following|below|above)\b`,
    String.raw`\b(?:the|this|these|those)\s+(?:[\w-]+\s+){0,2}(?:below|above)\b`,
    String.raw`\b(?:following|attached|given|shown|mentioned|above|below|enclosed)\s+(?:${POINTED_NOUNS})s?\b`,
    String.raw`\b(?:${POINTED_NOUNS})s?\s+(?:below|above|here)\b`,
    String.raw`\b(?:this|these|that|those)\s+(?:${POINTED_NOUNS})s?\b`,
    String.raw`\battach(?:ed|ment|ments)\b`,
    String.raw`\b(?:see|shown|given|listed|mentioned|stated|described)\s+(?:below|above)\b`,
    String.raw`\b(?:in|on)\s+(?:the\s+)?(?:image|picture|pic|photo|diagram|figure|graph|screenshot|video|link)\b`,
    String.raw`\bhere(?:'s|\s+is|\s+are)\s+(?:my|the|a)\b`,
    // "What type of insect is this?": the question ends on a pointer to something unseen.
    String.raw`\b(?:is|are|was|were)\s+(?:this|that|these|those)\s*[?.!:)]*\s*$`,
  ].join('|'),
  'i',
);

/**
 * The phrase by which a text points at content it does not carry, if any. Content that
 * follows the pointer in the text itself (a code block or a passage after a colon or line
 * break), or a "this X" whose X was named earlier in the text, is carried.
 */
function pointer(text: string): string | undefined {
  const m = DEICTIC.exec(text);
  if (!m) return undefined;
  const after = text.slice(m.index + m[0].length);
  if (/```|\n|:\s*\S/.test(after) && after.replace(/\s+/g, ' ').trim().length >= 40) return undefined;
  const demonstrative = /^(?:this|that|these|those)\s+(\w+?)s?$/i.exec(m[0].trim());
  if (demonstrative && new RegExp(`\\b${demonstrative[1]}`, 'i').test(text.slice(0, m.index))) return undefined;
  return m[0].trim().toLowerCase();
}

const TOKEN = /[$€£₹]?\d[\d,]*(?:\.\d+)*%?|[\p{L}\p{N}_]+(?:['’][\p{L}]+)?(?:[.\-+#][\p{L}\p{N}_+#]+)*[+#]*/gu;

function stripAccents(s: string): string {
  return s.normalize('NFD').replace(/\p{Mn}/gu, '');
}

export function analyze(text: string): TextFeatures {
  const clean = stripAccents(text).replace(/’/g, "'");
  const raw = clean.match(TOKEN) ?? [];
  const words = raw.map((w) => w.toLowerCase());
  const numbers: string[] = [];
  const identifiers: string[] = [];
  for (const w of raw) {
    if (/\d/.test(w)) {
      numbers.push(normaliseNumber(w));
    } else if (/^[A-Za-z_][\w]*(?:_\w+|\.[A-Za-z_]\w*\(?)+$/.test(w) || /^[a-z]+[A-Z][A-Za-z]*$/.test(w) || w.includes('_')) {
      identifiers.push(w.toLowerCase());
    }
  }
  for (const m of clean.matchAll(/\b([A-Za-z_]\w*)\s*\(\s*\)/g)) identifiers.push(`${m[1]!.toLowerCase()}()`);

  let negated = false;
  // "… or not?", "whether or not", "why or why not" ask both ways: not a negation.
  const negWords = (stripAccents(text).toLowerCase().replace(/’/g, "'").replace(NON_NEGATING, ' ').match(TOKEN) ?? []);
  for (const w of negWords) {
    const bare = w.replace(/'/g, '');
    if (WORDS.negations.has(bare) || w.endsWith("n't")) negated = true;
  }

  const deictic = pointer(clean);

  const entities: string[] = [];
  // Proper nouns: capitalised, not the first word of a sentence, not "I".
  const sentenceStart = /(?:^|[.?!:;"(]\s*)$/;
  for (const m of clean.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'&.+#-]*/gu)) {
    const tok = m[0].replace(/['.]s$|[.'-]+$/u, '');
    if (!/^\p{Lu}/u.test(tok)) continue;
    const before = clean.slice(0, m.index);
    if (sentenceStart.test(before)) continue;
    const lower = tok.toLowerCase();
    if (WORDS.sentenceCommon.has(lower)) continue;
    entities.push(lower);
  }

  const questionWords = new Set<string>();
  for (const w of words) {
    const q = WORDS.questionWords[w];
    if (q) questionWords.add(q);
  }

  const content = words.map((w) => w.replace(/'s$/, '')).filter((w) => WORDS.relationWords.has(w) || !WORDS.stopwords.has(w));

  return { raw: text, words, wordSet: new Set(words), numbers, identifiers, negated, deictic, entities, questionWords, content };
}
