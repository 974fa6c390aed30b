// Stage: dispatch under the vendor policy. A retryable failure is retried before any byte is
// read (backoff, Retry-After up to 5 s), then the call fails over along its chain with a
// `failover` event and reason; a refusal of the request itself ends the call; an answer not in
// the vendor's shape is not asked again of that vendor; an open circuit is skipped unasked.
import { describe, expect, it } from 'vitest';
import { breakerKey, CircuitBreaker } from '../providers/circuit-breaker.ts';
import type { CallContext, Candidate } from './context.ts';
import type { PipelineDeps } from './deps.ts';
import { backoffMs, dispatchWithPolicy } from './dispatch-policy.ts';
import { callContext, profile, providersOf, scriptedVendor, storedKeys, type VendorAnswer } from '../../test/support/pipeline.ts';

const primary = profile('gpt-4.1', 'openai');
const chain: Candidate[] = [
  { model: 'gpt-4.1', provider: 'azure', profile: profile('gpt-4.1', 'azure') },
  { model: 'claude-sonnet', provider: 'anthropic', profile: profile('claude-sonnet', 'anthropic') },
];

/** Answers by vendor: `script[vendor][n]` for its n-th request (the last one repeats). */
function rig(script: Record<string, VendorAnswer[]>, breaker = new CircuitBreaker({ threshold: 5, cooldownMs: 30_000 })) {
  const { outbound, sent } = scriptedVendor(({ vendor, n }) => {
    const answers = script[vendor] ?? ['ok'];
    return answers[Math.min(n, answers.length - 1)]!;
  });
  const deps = { config: { UPSTREAM_MAX_RETRIES: 2 }, outbound, providers: providersOf({ openai: {}, azure: {}, anthropic: {} }), providerKeys: storedKeys(), breaker } as unknown as PipelineDeps;
  const ctx: CallContext = callContext({ model: 'gpt-4.1' });
  ctx.route = { model: 'gpt-4.1', provider: 'openai', requestedProvider: 'openai', profile: primary, pinned: true, baselineModel: 'gpt-4.1', baselineProfile: primary, reasons: [], failover: chain };
  return { ctx, deps, sent: () => sent.map((s) => s.vendor) };
}

const down = { status: 503 };
const text = (d: Awaited<ReturnType<typeof dispatchWithPolicy>>) => JSON.parse(d.answer!.parsed.text).choices[0].message.content as string;

describe('dispatchWithPolicy', () => {
  it('retries a failing vendor before failing over, and serves its answer once it answers', async () => {
    const { ctx, deps, sent } = rig({ openai: [down, 'Oslo'] });
    const d = await dispatchWithPolicy(ctx, deps, new AbortController().signal);
    expect(text(d)).toBe('Oslo');
    expect(sent()).toEqual(['openai', 'openai']);
    expect(ctx.attempts.map((a) => [a.provider, a.status, a.outcome])).toEqual([['openai', 503, 'error'], ['openai', 200, 'ok']]);
    expect(ctx.events).toEqual([]);
  });

  it('fails over along the chain in order once the retries are spent, with a failover event and reason', async () => {
    const { ctx, deps, sent } = rig({ openai: [down], azure: [down], anthropic: ['Oslo'] });
    const d = await dispatchWithPolicy(ctx, deps, new AbortController().signal);
    expect(text(d)).toBe('Oslo');
    expect(sent()).toEqual(['openai', 'openai', 'openai', 'azure', 'azure', 'azure', 'anthropic']);
    expect(ctx.events.map((e) => [e.kind, e.payload.from_provider, e.payload.to_provider])).toEqual([['failover', 'openai', 'azure'], ['failover', 'azure', 'anthropic']]);
    expect(ctx.route).toMatchObject({ model: 'claude-sonnet', provider: 'anthropic' });
    expect(ctx.route!.reasons[0]).toMatch(/^failed over from gpt-4.1 \(openai\) to gpt-4.1 \(azure\)/);
  });

  it('fails over at once when Retry-After asks for more than it waits', async () => {
    const { ctx, deps, sent } = rig({ openai: [{ status: 429, headers: { 'retry-after': '60' } }], azure: ['Oslo'] });
    const t0 = performance.now();
    await dispatchWithPolicy(ctx, deps, new AbortController().signal);
    expect(performance.now() - t0).toBeLessThan(1_000);
    expect(sent()).toEqual(['openai', 'azure']);
  });

  it("ends the call on the vendor's refusal of the request itself: no retry, no failover", async () => {
    const { ctx, deps, sent } = rig({ openai: [{ status: 400, body: JSON.stringify({ error: { message: 'bad temperature', type: 'invalid_request_error' } }) }] });
    await expect(dispatchWithPolicy(ctx, deps, new AbortController().signal)).rejects.toMatchObject({ status: 400 });
    expect(sent()).toEqual(['openai']);
    expect(ctx.events).toEqual([]);
  });

  it("does not ask a vendor again whose answer is not in its shape, and fails over", async () => {
    const { ctx, deps, sent } = rig({ openai: [{ status: 200, body: '{"nothing":"here"}' }], azure: ['Oslo'] });
    await dispatchWithPolicy(ctx, deps, new AbortController().signal);
    expect(sent()).toEqual(['openai', 'azure']);
    expect(ctx.route!.reasons[0]).toContain('upstream_invalid');
  });

  it("skips a vendor whose circuit is open for the call's key without asking it", async () => {
    const breaker = new CircuitBreaker({ threshold: 1, cooldownMs: 60_000 });
    breaker.failure(breakerKey('openai', 'sk-platform-openai'));
    const { ctx, deps, sent } = rig({ azure: ['Oslo'] }, breaker);
    await dispatchWithPolicy(ctx, deps, new AbortController().signal);
    expect(sent()).toEqual(['azure']);
    expect(ctx.events[0]!.payload.reason).toMatch(/^upstream_error: openai is failing with this call's key/);
  });

  it('throws the last failure when every vendor of the chain fails', async () => {
    const { ctx, deps } = rig({ openai: [down], azure: [down], anthropic: [new Error('connect ECONNREFUSED')] });
    await expect(dispatchWithPolicy(ctx, deps, new AbortController().signal)).rejects.toMatchObject({ code: 'upstream_error', status: 502 });
    expect(ctx.attempts).toHaveLength(9);
  });
});

describe('backoffMs', () => {
  it('grows with full jitter under a cap, waits out a short Retry-After and refuses a long one', () => {
    for (let i = 0; i < 50; i++) expect(backoffMs(1, undefined)).toBeLessThanOrEqual(200);
    expect(backoffMs(0, '2')).toBe(2000);
    expect(backoffMs(0, '6')).toBeNull();
  });
});
