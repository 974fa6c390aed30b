// A probe's answers as evidence keeps them (the tenant's capture setting decides whether their
// texts stay), and what agreement compares of them: their keys, and whether an answer runs long.
import { answerKey, normalizeAnswer } from './normalize.ts';
import type { Probe } from './evidence-types.ts';

/** The longest normalized answer that is still a short one (a choice, a number, a name, a short phrase). */
const SHORT_ANSWER_CHARS = 40;

/** What agreement compares of a kept answer: its key, or for a row that kept only the text, the text's. */
export function keyOf(a: { text?: string | undefined; key?: string | undefined }): string {
  return a.key ?? answerKey(a.text ?? '');
}

export function baseKey(p: Probe): string {
  return p.baselineKey ?? answerKey(p.baselineText ?? '');
}

/** Whether two kept answers say the same thing (agree() on their texts, read from their keys). */
export function same(a: { text?: string | undefined; key?: string | undefined }, b: { text?: string | undefined; key?: string | undefined }): boolean {
  return keyOf(a) === keyOf(b);
}

/** A free-form answer: over several lines, or longer normalized than a short one. */
export function runsLong(text: string): boolean {
  return text.trim().includes('\n') || normalizeAnswer(text).length > SHORT_ANSWER_CHARS;
}

/**
 * A probe as the tenant's capture setting lets evidence keep it: every answer's agreement key
 * and the baseline's length class always; the texts only when `keepText` gives them back (capture
 * `full`: masked when it redacts PII), else none. The optimizer's memory holds this form too, so
 * every replica decides on the same evidence, loaded or not.
 */
export function storedProbe(p: Probe, keepText: (text: string) => string | null): Probe {
  const kept = (text: string | undefined, key: string | undefined) => {
    const k = key ?? answerKey(text ?? '');
    const t = text === undefined ? null : keepText(text);
    return t === null ? { key: k } : { text: t, key: k };
  };
  const base = kept(p.baselineText, p.baselineKey);
  const { baselineText: _t, baselineKey: _k, ...rest } = p;
  const out: Probe = { ...rest, ...(base.text !== undefined ? { baselineText: base.text } : {}), baselineKey: base.key, baselineLong: p.baselineLong ?? runsLong(p.baselineText ?? ''), answers: {} };
  for (const [m, a] of Object.entries(p.answers)) {
    const { text, key, ...grade } = a;
    out.answers[m] = { ...kept(text, key), ...grade };
  }
  if (p.unpruned) out.unpruned = { ...kept(p.unpruned.text, p.unpruned.key), score: p.unpruned.score };
  return out;
}
