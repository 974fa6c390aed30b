import { describe, expect, it } from 'vitest';
import { Optimizer } from './optimizer.ts';
import { askedKind, newKindTally, noteKind, readKind } from './step-kind.ts';

const asks = (content: unknown, system?: string) => askedKind({ messages: [...(system ? [{ role: 'system', content: system }] : []), { role: 'user', content }] });

describe("a step's kind of work, read from its requests", () => {
  it('reads code from a request that asks for a program, names a language with one, or holds code', () => {
    expect(asks('Write a python function to identify non-prime numbers.')).toBe('code');
    expect(asks('Can you implement the algorithm for a binary search over this array?')).toBe('code');
    expect(asks('I need a bash script that renames every file in a folder.')).toBe('code');
    expect(asks('Why does this fail?\n```js\nconst a = b.c;\n```')).toBe('code');
    expect(asks('What is wrong here?\ndef f(x):\n    return x +')).toBe('code');
    expect(asks([{ type: 'text', text: 'Fix the SQL query below so it counts distinct users.' }])).toBe('code');
    expect(asks('Answer the question.', 'You write TypeScript functions for a Node service.')).toBe('code');
  });

  it('reads nothing from questions, choices and prose, whatever words they share with code', () => {
    expect(asks('Which of the following best describes the function of the mitochondria?\nA) energy\nB) storage\nAnswer:')).toBeUndefined();
    expect(asks('Sarah was a much better surgeon than Maria so _ always got the harder cases.\nA) Maria\nB) Sarah')).toBeUndefined();
    expect(asks('Summarize this support ticket in two sentences: the class was cancelled and I want a refund.')).toBeUndefined();
    expect(asks('Write a short poem about the sea.')).toBeUndefined();
    expect(askedKind({})).toBeUndefined();
  });

  it("takes the step's kind from most of its first calls, so one odd request does not move it", () => {
    const t = newKindTally();
    expect(readKind(t)).toBeUndefined();
    noteKind(t, () => 'code');
    expect(readKind(t)).toBe('code');
    noteKind(t, () => undefined);
    expect(readKind(t)).toBeUndefined(); // one of two is not most
    for (let i = 0; i < 60; i++) noteKind(t, () => 'code');
    expect(readKind(t)).toBe('code');
    for (let i = 0; i < 500; i++) noteKind(t, () => undefined); // only the first 100 calls count: the kind stays
    expect(t.calls).toBe(100);
    expect(readKind(t)).toBe('code');
  });
});

describe("the optimizer's kind for a step", () => {
  it('is the declared kind where the calls name one, else what its calls asked for', () => {
    const o = new Optimizer({} as never, {} as never);
    const step = { accountId: 'acct', workflowId: 'wf', fingerprint: 'solve', label: 'solve', release: '' };
    expect(o.kindOf(step, () => 'code')).toBe('code');
    expect(o.kindOf(step, () => 'code')).toBe('code');
    expect(o.kindOf(step, () => undefined)).toBe('code'); // two of three
    expect(o.kindOf({ ...step, fingerprint: 'other', kind: 'extraction' }, () => 'code')).toBe('extraction');
    // the step view says which, and whence
    const views = Object.fromEntries(o.stepStates('wf').map((v) => [v.fingerprint, v.learning]));
    expect(views.solve).toMatchObject({ kind: 'code', kind_declared: false });
    expect(views.other).toMatchObject({ kind: 'extraction', kind_declared: true });
  });
});
