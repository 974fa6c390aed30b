// The judge: a model (routing settings; default the baseline) grades one answer to
// a request with a structured rubric, answering JSON {score, reason}.
export const JUDGE_RUBRIC =
  'You are a strict grader. You receive a JSON object with the "request" (chat messages) and one "answer" to it. ' +
  'Judge whether the answer correctly and completely does what the request asks, following its format instructions. ' +
  'Reply with JSON only: {"score": number between 0 and 1, "reason": short string}. ' +
  '1 means fully correct, 0 means wrong, refused or off-task; use values between only for partly correct answers.';

/**
 * The grading request; a judge without structured outputs is held to JSON by the rubric
 * alone. A second opinion is sampled (temperature 1): at 0 a judge repeats itself and its
 * self-agreement would say nothing of its errors.
 */
export function judgeBody(judgeModel: string, request: unknown[], answer: string, opts: { structured?: boolean; resample?: boolean } = {}): Record<string, unknown> & { model: string; messages: Record<string, unknown>[] } {
  const structured = opts.structured ?? true;
  const body = {
    model: judgeModel,
    temperature: opts.resample ? 1 : 0,
    messages: [
      { role: 'system', content: JUDGE_RUBRIC },
      { role: 'user', content: JSON.stringify({ request, answer }) },
    ],
  };
  if (!structured) return body;
  return {
    ...body,
    response_format: {
      type: 'json_schema',
      json_schema: {
        name: 'grade',
        strict: true,
        schema: { type: 'object', properties: { score: { type: 'number' }, reason: { type: 'string' } }, required: ['score', 'reason'], additionalProperties: false },
      },
    },
  };
}

/** The judge's score in [0, 1], or null when its answer is not a grade. */
export function parseGrade(content: string): number | null {
  try {
    const j = JSON.parse(content.trim().replace(/^```(json)?|```$/g, '')) as { score?: unknown };
    const s = Number(j.score);
    return Number.isFinite(s) ? Math.min(1, Math.max(0, s)) : null;
  } catch {
    return null;
  }
}
