// The two hot stores keep one contract: the in-process store a newcomer's embedded gateway runs
// on, and Redis, which the rest of the suite runs on. Plain keys with their expiry, claims,
// counters, idempotency records and notices behave alike; and any sequence of money operations
// (load, reserve with rate limits, settle, credit) gets the same answers from the budget's
// in-process steps as from its Lua script (fast-check generates the sequences).
import { randomBytes, randomInt } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BudgetOp } from '../src/hot/budget.ts';
import { WINDOW_MS } from '../src/hot/rate-window.ts';
import { MemoryHotStore } from '../src/hot/memory.ts';
import { RedisHotStore } from '../src/hot/redis.ts';
import type { HotStore, IdempotencyRecord } from '../src/hot/store.ts';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const fresh = (what: string) => `test:${what}:${randomBytes(6).toString('hex')}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const stores: [string, () => Promise<HotStore>][] = [
  ['in-process', async () => new MemoryHotStore()],
  ['Redis', () => RedisHotStore.connect(redisUrl, `optimizer-test-${process.pid}:`, () => undefined)],
];

describe.each(stores)('the %s hot store', (_name, open) => {
  let hot: HotStore;
  beforeAll(async () => {
    hot = await open();
  });
  afterAll(async () => {
    await hot.close();
  });

  it('keeps a key until its expiry, and deletes it on request', async () => {
    const [a, b] = [fresh('key'), fresh('key')];
    expect(await hot.get(a)).toBeNull();
    await hot.set(a, 'one', 60_000);
    await hot.set(b, 'two', 80);
    expect([await hot.get(a), await hot.get(b)]).toEqual(['one', 'two']);
    await sleep(200);
    expect([await hot.get(a), await hot.get(b)]).toEqual(['one', null]);
    await hot.del(a);
    expect(await hot.get(a)).toBeNull();
  });

  it('grants a claim once until it expires or is released', async () => {
    const k = fresh('claim');
    expect(await hot.setIfAbsent(k, 'first', 80)).toBe(true);
    expect(await hot.setIfAbsent(k, 'second', 80)).toBe(false);
    expect(await hot.get(k)).toBe('first');
    await sleep(200);
    expect(await hot.setIfAbsent(k, 'third', 60_000)).toBe(true);
    await hot.del(k);
    expect(await hot.setIfAbsent(k, 'fourth', 60_000)).toBe(true);
  });

  it('counts from 1, and starts again once the first count is older than the window', async () => {
    const k = fresh('count');
    expect([await hot.count(k, 150), await hot.count(k, 150), await hot.count(k, 150)]).toEqual([1, 2, 3]);
    await sleep(300);
    expect(await hot.count(k, 150)).toBe(1);
  });

  /** A record's fields (redis-om's entity also carries its key as a symbol). */
  const fetched = async (id: string) => {
    const rec = await hot.fetchIdempotency(id);
    return rec && Object.fromEntries(Object.entries(rec));
  };

  it('stores an idempotency record as it was given, and forgets it after its retention', async () => {
    const rec: IdempotencyRecord = { fingerprint: 'f1', state: 'done', status: 201, headers: '{"content-type":"application/json"}', body: '{"ok":true}' };
    const [kept, brief] = [fresh('idem'), fresh('idem')];
    await hot.saveIdempotency(kept, rec, 60_000);
    await hot.saveIdempotency(brief, { ...rec, state: 'in_flight' }, 1_000);
    expect(await fetched(kept)).toEqual(rec);
    expect(await fetched(brief)).toEqual({ ...rec, state: 'in_flight' });
    expect(await fetched(fresh('idem'))).toBeNull();
    await sleep(1_300);
    expect(await fetched(brief)).toBeNull();
    expect(await fetched(kept)).toEqual(rec);
  });

  it('delivers a notice to every subscriber of its channel and to no other', async () => {
    const [channel, other] = [fresh('channel'), fresh('channel')];
    const seen: string[] = [];
    await hot.subscribe(channel, (m) => void seen.push(`a:${m}`));
    await hot.subscribe(channel, (m) => void seen.push(`b:${m}`));
    await hot.subscribe(other, (m) => void seen.push(`other:${m}`));
    await hot.publish(channel, 'changed');
    for (let i = 0; i < 50 && seen.length < 2; i++) await sleep(10);
    await sleep(30);
    expect(seen.sort()).toEqual(['a:changed', 'b:changed']);
  });
});

describe('Redis key prefixes', () => {
  // Two deployments (or two test gateways) on one Redis: the per-address door counters, claims
  // and idempotency records of one never reach the other's.
  it('keep two stores on one Redis apart', async () => {
    const tag = randomBytes(6).toString('hex');
    const [a, b] = await Promise.all([RedisHotStore.connect(redisUrl, `test-a-${tag}:`, () => undefined), RedisHotStore.connect(redisUrl, `test-b-${tag}:`, () => undefined)]);
    try {
      const k = 'door:estimate:127.0.0.1:1';
      expect([await a.count(k, 60_000), await a.count(k, 60_000), await b.count(k, 60_000)]).toEqual([1, 2, 1]);
      expect([await a.setIfAbsent('claim', 'a', 60_000), await b.setIfAbsent('claim', 'b', 60_000)]).toEqual([true, true]);
      await a.saveIdempotency('idem', { fingerprint: 'f', state: 'done', status: 200, headers: '{}', body: '{}' }, 60_000);
      expect(await b.fetchIdempotency('idem')).toBeNull();
      expect((await a.fetchIdempotency('idem'))?.fingerprint).toBe('f');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('the money counters', () => {
  let memory: MemoryHotStore;
  let redis: RedisHotStore;
  beforeAll(async () => {
    memory = new MemoryHotStore();
    redis = await RedisHotStore.connect(redisUrl, `optimizer-test-${process.pid}:`, () => undefined);
  });
  afterAll(async () => {
    await memory.close();
    await redis.close();
  });

  // Amounts in micro-dollars (whole numbers, as the budget sends them), small so that caps,
  // balances and rate limits are met exactly as often as they are passed; two months; two rate
  // limits per tenant; time moves forward by up to two minutes between operations. Each
  // sequence starts by loading the tenant, as the budget does before its first reservation.
  const micros = fc.integer({ min: 0, max: 40 });
  const signed = fc.integer({ min: -30, max: 30 });
  const period = fc.constantFrom('2026-01', '2026-02');
  const init = fc.record({ kind: fc.constant('init' as const), wallet: micros, allowance: micros, funded: fc.boolean(), period, spent: micros });
  const op = fc.oneof(
    init,
    fc.record({
      kind: fc.constant('reserve' as const),
      charge: micros,
      spend: micros,
      cap: fc.option(fc.integer({ min: 0, max: 120 })),
      period,
      limits: fc.array(fc.record({ which: fc.constantFrom(0, 1), limit: fc.integer({ min: 1, max: 40 }), cost: fc.integer({ min: 0, max: 15 }) }), { maxLength: 2 }),
    }),
    fc.record({ kind: fc.constant('settle' as const), allowance: signed, wallet: signed, period, spent: signed, deltas: fc.array(fc.record({ which: fc.constantFrom(0, 1), delta: fc.integer({ min: -10, max: 10 }) }), { maxLength: 2 }) }),
    fc.record({ kind: fc.constant('credit' as const), wallet: signed, allowance: signed, funded: fc.boolean() }),
  );
  const step = fc.record({ op, advanceMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2 * WINDOW_MS })) });

  it('count a settle on a call reserved at no cost alike in the in-process store and in Redis', async () => {
    // found by the property below (seed -154334649): Redis made no counter for a cost of 0, so the call's settle found
    // none to add to, where the in-process counter took it, and the next call was refused in one store only
    const tenant = fresh('budget');
    const key = fresh('rate');
    const now = Date.UTC(2026, 0, 15, 12, 0, 0) + 1_000;
    const ops: BudgetOp[] = [
      { kind: 'init', wallet: 0, allowance: 0, funded: false, period: '2026-01', spent: 0 },
      { kind: 'reserve', charge: 0, spend: 0, cap: 0, period: '2026-01', rate: { now, charges: [{ key, limit: 1, cost: 0 }] } },
      { kind: 'settle', allowance: 0, wallet: 0, period: '2026-01', spent: 0, rate: [{ key, window: Math.floor(now / WINDOW_MS), delta: 1 }] },
      { kind: 'reserve', charge: 0, spend: 0, cap: null, period: '2026-01', rate: { now, charges: [{ key, limit: 6, cost: 6 }] } },
    ];
    const answers: [unknown, unknown][] = [];
    for (const o of ops) answers.push([await memory.budget(tenant, o), await redis.budget(tenant, o)]);
    for (const [inProcess, onRedis] of answers) expect(inProcess).toEqual(onRedis);
    // the call used 1 of the minute's 6 beyond its reservation: 6 more do not fit
    expect(answers[3]![0]).toMatchObject({ kind: 'limited', index: 0 });
  });

  it('answer every sequence of operations alike in the in-process store and in Redis', async () => {
    await fc.assert(
      fc.asyncProperty(init, fc.array(step, { minLength: 1, maxLength: 30 }), async (load, rest) => {
        const steps = [{ op: load, advanceMs: 0 }, ...rest];
        // fresh names per sequence: the Redis counters outlive it, the in-process ones are per store
        const tenant = fresh('budget');
        const limitKeys = [fresh('rate'), fresh('rate')];
        let now = Date.UTC(2026, 0, 15, 12, 0, 0) + randomInt(WINDOW_MS);
        for (const { op: o, advanceMs } of steps) {
          now += advanceMs;
          let budgetOp: BudgetOp;
          if (o.kind === 'reserve') {
            const charges = o.limits.map((l) => ({ key: limitKeys[l.which]!, limit: l.limit, cost: l.cost }));
            budgetOp = { kind: 'reserve', charge: o.charge, spend: o.spend, cap: o.cap, period: o.period, ...(charges.length > 0 ? { rate: { now, charges } } : {}) };
          } else if (o.kind === 'settle') {
            const rate = o.deltas.map((d) => ({ key: limitKeys[d.which]!, window: Math.floor(now / WINDOW_MS), delta: d.delta }));
            budgetOp = { kind: 'settle', allowance: o.allowance, wallet: o.wallet, period: o.period, spent: o.spent, ...(rate.length > 0 ? { rate } : {}) };
          } else budgetOp = o;
          const [inProcess, onRedis] = [await memory.budget(tenant, budgetOp), await redis.budget(tenant, budgetOp)];
          expect(inProcess, JSON.stringify(budgetOp)).toEqual(onRedis);
        }
      }),
      { numRuns: 200 },
    );
  });
});
