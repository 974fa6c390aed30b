// The mocks' grading judge: a request that asks for a {"score", "reason"} grade is answered
// with a passing grade; every other request is answered as usual.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIMock } from '../src/index.ts';
import { judgeGrade } from '../src/grader.ts';
import type { MockVendor } from '../src/types.ts';

let vendor: MockVendor;
beforeAll(async () => {
  vendor = await startOpenAIMock({ grader: judgeGrade });
});
afterAll(() => vendor.close());

async function ask(messages: Array<{ role: string; content: string }>): Promise<string> {
  const r = await fetch(`${vendor.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-4.1-mini', messages }) });
  return ((await r.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content;
}

describe('the mock grading judge', () => {
  it('answers a grading request with a passing grade', async () => {
    const rubric = 'You are a strict grader. Reply with JSON only: {"score": number between 0 and 1, "reason": short string}.';
    const grade = JSON.parse(await ask([{ role: 'system', content: rubric }, { role: 'user', content: '{"request":[],"answer":"x"}' }])) as { score: number; reason: string };
    expect(grade.score).toBe(1);
    expect(grade.reason).toMatch(/\S/);
  });

  it('answers any other request as the plain mock does', async () => {
    expect(await ask([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hello there' }])).toBe('mock answer to: hello there');
  });
});
