// When two answers say the same thing, for the agreement gate: case, surrounding
// whitespace and punctuation, a trailing ")" or "." after a choice letter, and code
// fences do not matter.
import { createHash } from 'node:crypto';
import { redactText } from '../guard/redact.ts';

const memo = new Map<string, string>();
const MEMO_MAX = 20_000;

/** The comparable form of an answer (memoized: the optimizer compares the same probed answers often). */
export function normalizeAnswer(text: string): string {
  let n = memo.get(text);
  if (n === undefined) {
    n = normalize(text);
    if (memo.size >= MEMO_MAX) memo.clear();
    memo.set(text, n);
  }
  return n;
}

function normalize(text: string): string {
  let t = text.trim();
  t = t.replace(/^```[a-z]*\n?|```$/gi, '').trim();
  const firstLine = t.split('\n')[0]!.trim();
  // a multiple-choice style answer: "B", "B)", "B.", "(B)", "Answer: B"
  const choice = /^(?:answer\s*[:-]\s*)?\(?([A-Za-z])\)?[.)]?$/.exec(firstLine);
  if (choice && t.split('\n').filter((l) => l.trim()).length === 1) return choice[1]!.toUpperCase();
  return t.toLowerCase().replace(/\s+/g, ' ').replace(/[.!?]+$/, '');
}

export function agree(a: string, b: string): boolean {
  return normalizeAnswer(a) === normalizeAnswer(b);
}

/**
 * The longest normalized answer evidence keeps in the clear as its agreement key when the
 * tenant's capture keeps no text (a choice, a number, a name, a short phrase): past it only a
 * hash is kept, so the key never becomes a copy of the answer.
 */
export const SHORT_FORM_MAX = 64;

const keyMemo = new Map<string, string>();

/**
 * What agreement compares, in a form evidence may keep whatever the capture setting: `=` and
 * the normalized answer when that is short and masks no personal data, else `#` and a hash of
 * it. Two answers agree exactly when their keys are equal (as their normalized forms are).
 */
export function answerKey(text: string): string {
  let k = keyMemo.get(text);
  if (k === undefined) {
    const n = normalizeAnswer(text);
    k = n.length <= SHORT_FORM_MAX && !redactText(n).changed ? `=${n}` : `#${createHash('sha256').update(n).digest('base64url')}`;
    if (keyMemo.size >= MEMO_MAX) keyMemo.clear();
    keyMemo.set(text, k);
  }
  return k;
}
