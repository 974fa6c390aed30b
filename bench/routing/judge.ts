// The replay judge: the gateway grades a served answer by asking its judge model with a fixed
// rubric; the replay vendor recognizes such a call and answers with the answer's recorded score,
// flipped with probability --judge-noise (a judge is not always right).
import { contentText, type Answer } from './data.ts';
import { drawFor } from './prng.ts';

/** How the gateway's judge rubric begins (its system message). */
export const JUDGE_RUBRIC_PREFIX = 'You are a strict grader';

export interface JudgeCall {
  /** The messages of the call being judged. */
  request: unknown[];
  /** The candidate answer's text. */
  answer: string;
}

/**
 * A judge call: the first message is a system message starting with the rubric, and the last
 * user message's content is JSON `{"request": [...messages], "answer": "..."}`. Anything else
 * (including a rubric with an unreadable payload) is not a judge call: null.
 */
export function parseJudgeCall(messages: readonly unknown[]): JudgeCall | null {
  const first = messages[0] as { role?: unknown; content?: unknown } | undefined;
  if (!first || first.role !== 'system' || !contentText(first.content).trimStart().startsWith(JUDGE_RUBRIC_PREFIX)) return null;
  const lastUser = [...messages].reverse().find((m) => (m as { role?: unknown } | undefined)?.role === 'user') as { content?: unknown } | undefined;
  if (!lastUser) return null;
  let payload: unknown;
  try {
    payload = JSON.parse(contentText(lastUser.content));
  } catch {
    return null;
  }
  const p = payload as { request?: unknown; answer?: unknown } | null;
  if (!p || typeof p !== 'object' || !Array.isArray(p.request) || typeof p.answer !== 'string') return null;
  return { request: p.request, answer: p.answer };
}

/**
 * The model whose recorded text equals `text` (both trimmed). `preferred` wins a tie (several
 * models often answer the same letter), else the first in the answers' order; undefined when none.
 */
export function modelWithText(answers: Record<string, Answer>, text: string, preferred?: string): string | undefined {
  const t = text.trim();
  if (preferred !== undefined && answers[preferred]?.text.trim() === t) return preferred;
  return Object.keys(answers).find((m) => answers[m]!.text.trim() === t);
}

export interface Verdict {
  /** The recorded score of the matched answer (0 when no model's text matched). */
  truth: 0 | 1;
  /** What the judge answers: truth, flipped with probability `noise`. */
  score: 0 | 1;
  matched: string | undefined;
  flipped: boolean;
}

/**
 * Grades `answer` against a row's answers. `nth` numbers the judgements of the same (row, answer)
 * so repeated judgements draw independently yet reproducibly, whatever order calls arrive in.
 */
export function verdict(answers: Record<string, Answer>, answer: string, noise: number, seed: number, rowId: string, nth: number): Verdict {
  const matched = modelWithText(answers, answer);
  const truth: 0 | 1 = matched !== undefined && answers[matched]!.score >= 0.5 ? 1 : 0;
  const flipped = noise > 0 && drawFor(seed, `judge|${rowId}|${answer.trim()}|${nth}`) < noise;
  return { truth, score: flipped ? ((1 - truth) as 0 | 1) : truth, matched, flipped };
}

/** The judge's reply content and usage (prompt ≈ characters / 4, completion 10). */
export function judgeReply(messages: readonly unknown[], score: 0 | 1): { content: string; usage: { prompt_tokens: number; completion_tokens: number } } {
  const chars = messages.reduce<number>((n, m) => n + contentText((m as { content?: unknown } | undefined)?.content).length, 0);
  return { content: JSON.stringify({ score, reason: 'replay' }), usage: { prompt_tokens: Math.max(1, Math.ceil(chars / 4)), completion_tokens: 10 } };
}
