// Stage: budget. Before dispatch the call's maximum cost is reserved (the vendor cost on the
// platform's keys, only the fee on the tenant's own), with its rate-limit charges in the same
// step; a call the cap or the wallet cannot cover is refused 402 before any vendor is paid. The
// prompt's size bounds its tokens; the tokenizer counts them only when that bound is refused.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.ts';
import { RateLimitedError } from '../limits/rate-limits.ts';
import { noUsage } from '../wire/usage.ts';
import { budgetStage } from './budget-stage.ts';
import type { PipelineDeps } from './deps.ts';
import type { RoutedPlan } from './routed-plan.ts';
import { countPromptTokens, promptTokenBound } from './tokens.ts';
import { callContext, catalogOf, profile, providersOf, storedKeys } from '../../test/support/pipeline.ts';

const big = profile('big', 'openai'); // 1 and 4 USD per million tokens: a token in is a micro-dollar, a token out four
const small = profile('small', 'groq', { input_per_mtok: 0.5, output_per_mtok: 1 });
const judge = profile('judge', 'openai');

/** A budget that refuses (with `refusal`) any charge over `limit` micro-dollars, recording every step. */
function deps(opts: { limit?: number; refusal?: ApiError; stored?: string[] } = {}) {
  const log: { op: string; args: unknown[] }[] = [];
  const s = {
    config: { BILLING_FEE_RATE: 0.25 },
    workflowLife: { refusePaused: () => undefined, feesInvoiced: () => false },
    rateLimits: { charges: (_p: unknown, tokens: number, output: number) => [{ tokens, output }] },
    budget: {
      reserve: async (account: string, charge: number, spend: number, limits: unknown) => {
        log.push({ op: 'reserve', args: [account, charge, spend, limits] });
        if (charge > (opts.limit ?? Infinity)) throw opts.refusal ?? new ApiError('spend_cap_reached');
        return { id: `res-${log.length}` };
      },
      split: (res: unknown, charge: number, spend: number) => (log.push({ op: 'split', args: [res, charge, spend] }), { id: 'learning' }),
      settle: (res: unknown, settled: unknown, tokens: number) => (log.push({ op: 'settle', args: [res, settled, tokens] }), []),
    },
    catalog: catalogOf([big, small, judge]),
    providers: providersOf({ openai: {}, groq: {} }),
    providerKeys: storedKeys(opts.stored),
  } as unknown as PipelineDeps;
  return { s, log };
}

function pinned(messages: unknown[] = [{ role: 'user', content: 'capital of Norway?' }]) {
  const ctx = callContext({ model: 'big', messages, max_tokens: 100 });
  ctx.route = { model: 'big', provider: 'openai', requestedProvider: 'openai', profile: big, pinned: true, baselineModel: 'big', baselineProfile: big, reasons: [], failover: [] };
  return ctx;
}

describe('budgetStage', () => {
  it("reserves a pinned call's most on the platform's key: its prompt bound in and its max_tokens out", async () => {
    const { s, log } = deps();
    const ctx = pinned();
    await budgetStage(ctx, s, null);
    const bound = promptTokenBound(ctx.body.messages as unknown[]);
    expect(log).toEqual([{ op: 'reserve', args: ['acct_1', bound + 400, bound + 400, [{ tokens: bound, output: 100 }]] }]);
    expect(ctx.reservation).toEqual({ id: 'res-1' });
    expect(ctx.learningReservation).toBeNull();
  });

  it("settles to the platform-key attempts' cost plus the fee on the saving", async () => {
    const { s, log } = deps();
    const ctx = pinned();
    await budgetStage(ctx, s, null);
    ctx.attempts.push({ provider: 'openai', model: 'big', profile: big, startedAt: new Date(), latencyMs: 5, status: 200, outcome: 'ok', usage: { ...noUsage, promptTokens: 10, completionTokens: 5 }, role: 'serve', paidBy: 'platform' });
    ctx.served = ctx.attempts[0]!;
    const { billing } = ctx.settle!({ baseline: 130, served: 30, actual: 30, exploration: 0, saving: 100 });
    expect(billing).toMatchObject({ usage_micros: 30, fee_micros: 25, fee_rate: 0.25 });
    expect(log.at(-1)).toEqual({ op: 'settle', args: [{ id: 'res-1' }, expect.objectContaining({ callId: ctx.id, charge: 55, spend: 55 }), 15] });
  });

  it("charges only the fee's bound on the tenant's own key", async () => {
    const { s, log } = deps({ stored: ['openai'] });
    const ctx = pinned();
    await budgetStage(ctx, s, null);
    const all = promptTokenBound(ctx.body.messages as unknown[]) + 400;
    expect(log[0]!.args.slice(1, 3)).toEqual([Math.ceil(0.25 * all), all]);
  });

  it('refuses 402 when even the counted prompt cannot be covered, before any vendor is paid', async () => {
    const { s, log } = deps({ limit: 50 });
    const ctx = pinned();
    await expect(budgetStage(ctx, s, null)).rejects.toMatchObject({ code: 'spend_cap_reached', status: 402 });
    expect(log.map((l) => l.op)).toEqual(['reserve', 'reserve']); // the bound, then the tokenizer's count
    expect(ctx.reservation).toBeNull();
    expect(ctx.settle).toBeNull();
  });

  it("admits on the tokenizer's count a call its prompt's size bound would refuse", async () => {
    const messages = [{ role: 'user', content: 'é'.repeat(400) }]; // two bytes a character: the bound is far above the count
    const counted = countPromptTokens(messages) + 400;
    const { s, log } = deps({ limit: counted, refusal: new ApiError('wallet_empty') });
    const ctx = pinned(messages);
    await budgetStage(ctx, s, null);
    expect(log.map((l) => l.args[1])).toEqual([promptTokenBound(messages) + 400, counted]);
    expect(ctx.reservation).toEqual({ id: 'res-2' });
  });

  it('does not count again for a refusal no count could lift (too many requests)', async () => {
    const { s, log } = deps({ limit: 0, refusal: new RateLimitedError('slow down', 3, 'requests') });
    await expect(budgetStage(pinned(), s, null)).rejects.toMatchObject({ code: 'rate_limited', status: 429, headers: { 'retry-after': '3' } });
    expect(log).toHaveLength(1);
  });

  it('refuses an unpriced model (400 unknown_model) only once the money was there, its reservation set for the runner to give back', async () => {
    const { s } = deps();
    const ctx = pinned();
    ctx.unpricedRefusal = new ApiError('unknown_model', 'no price');
    await expect(budgetStage(ctx, s, null)).rejects.toMatchObject({ code: 'unknown_model' });
    expect(ctx.reservation).toEqual({ id: 'res-1' });
    const broke = pinned();
    broke.unpricedRefusal = new ApiError('unknown_model', 'no price');
    await expect(budgetStage(broke, deps({ limit: 0 }).s, null)).rejects.toMatchObject({ code: 'spend_cap_reached' }); // the cap speaks first
  });

  it("sets apart a routed call's learning share of the reservation", async () => {
    const { s, log } = deps();
    const ctx = callContext({ model: 'auto', max_tokens: 100 });
    ctx.route = { model: 'small', provider: 'groq', requestedProvider: 'groq', profile: small, pinned: false, baselineModel: 'big', baselineProfile: big, reasons: [], failover: [] };
    const plan = { decision: { probe: ['small'] }, baseline: 'big', judge: 'judge', floor: 0.9 } as unknown as RoutedPlan;
    await budgetStage(ctx, s, plan);
    const split = log.find((l) => l.op === 'split')!;
    const [, reservedCharge] = log[0]!.args as [string, number];
    const [, learningCharge, learningSpend] = split.args as [unknown, number, number];
    expect(learningSpend).toBeGreaterThan(0);
    expect(learningCharge).toBe(learningSpend); // on the platform's keys the learning is charged as it is spent
    expect(reservedCharge).toBeGreaterThan(learningSpend); // the answer's share stays with the call
    expect(ctx.learningReservation).toEqual({ id: 'learning' });
  });
});
