// What the exact and semantic caches may keep: complete, successful answers only, and never
// the answer of a trial (an unproven policy served to learn), which must not reach other calls.
import { describe, expect, it } from 'vitest';
import { cacheable } from './cache.ts';
import type { CallContext } from './context.ts';

const answer = JSON.stringify({ choices: [{ finish_reason: 'stop', message: { content: 'Oslo' } }] });
const ctxWith = (optimizer: CallContext['optimizer'], body: Record<string, unknown> = {}) => ({ body, optimizer }) as unknown as CallContext;
const routed = { fingerprint: 'f', step: 'triage', policy: 'model:gpt-5-nano', settled: false, baseline: 'gpt-4.1', floor: 0.95 };

describe('cacheable', () => {
  it('keeps a complete answer, proven or unrouted', () => {
    expect(cacheable(ctxWith(null), answer)).toBe(true);
    expect(cacheable(ctxWith(routed), answer)).toBe(true);
  });

  it("never keeps a trial's answer", () => {
    expect(cacheable(ctxWith({ ...routed, trial: { risk_budget_used: 0.2 } }), answer)).toBe(false);
  });

  it('never keeps a truncated answer or several choices', () => {
    expect(cacheable(ctxWith(null), JSON.stringify({ choices: [{ finish_reason: 'length', message: { content: 'Os' } }] }))).toBe(false);
    expect(cacheable(ctxWith(null, { n: 2 }), answer)).toBe(false);
  });
});
