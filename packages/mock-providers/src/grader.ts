// The mocks' grading judge. Every mock model answers a request alike, so a judge asked
// whether a cheaper model's answer holds up says yes: a grade of 1 for any request whose
// system message asks for a {"score", "reason"} grade. That is what lets the gateway settle
// a step on a cheaper model offline and show a saving.
const isGradeRequest = (text: string): boolean => /"score"/.test(text) && /"reason"/.test(text) && /grade/i.test(text);

export function judgeGrade(messages: ReadonlyArray<{ role: string; content?: unknown }>): string | undefined {
  const system = messages.find((m) => m.role === 'system' || m.role === 'developer');
  const text = typeof system?.content === 'string' ? system.content : '';
  return isGradeRequest(text) ? JSON.stringify({ score: 1, reason: 'the answer does what the request asks' }) : undefined;
}
