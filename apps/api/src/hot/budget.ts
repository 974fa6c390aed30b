// The money counters the hot path reads and moves: per tenant, what is left of the wallet and
// the dev allowance after open reservations, and what was spent in each calendar month. One
// operation is atomic across replicas: a Lua script on Redis, the same steps in-process for the
// embedded store. PostgreSQL's ledger is the record; these counters are loaded from it once per
// tenant and then moved by the same events (reserve, settle, credit). A reservation also checks
// and counts the call's rate limits (limits/rate-window.ts) in the same step, so the hot route
// pays one round trip for both, and a call refused by either counts against neither.
import { counterKey, RATE_LUA, windowOf, type RateCounters, type RateAdjust, type RateCharge } from './rate-window.ts';

/** Fields of a tenant's hash: `w` wallet, `a` allowance, `f` 1 once the wallet was ever funded, `s:<YYYY-MM>` spent. */
export type BudgetOp =
  | { kind: 'init'; wallet: number; allowance: number; funded: boolean; period: string; spent: number }
  | { kind: 'reserve'; charge: number; spend: number; cap: number | null; period: string; rate?: { now: number; charges: readonly RateCharge[] } }
  | { kind: 'settle'; allowance: number; wallet: number; period: string; spent: number; rate?: readonly RateAdjust[] }
  | { kind: 'credit'; wallet: number; allowance: number; funded: boolean };

export type BudgetAnswer =
  | { kind: 'ok'; allowance: number; wallet: number }
  | { kind: 'uninit' }
  | { kind: 'refused'; reason: 'spend_cap_reached' | 'wallet_empty' | 'dev_allowance_exhausted'; spent: number }
  /** A rate limit refused: which charge (its index), and how long until it would fit (ms; -1: never). */
  | { kind: 'limited'; index: number; waitMs: number };

const REASONS = ['spend_cap_reached', 'wallet_empty', 'dev_allowance_exhausted'] as const;

/** Arguments for the script: the op's kind, then its numbers in a fixed order. */
export function scriptArgs(op: BudgetOp): string[] {
  const n = (x: number) => String(Math.round(x));
  switch (op.kind) {
    case 'init':
      return ['init', n(op.wallet), n(op.allowance), op.funded ? '1' : '0', op.period, n(op.spent)];
    case 'reserve': {
      const rate = op.rate?.charges ?? [];
      return ['reserve', n(op.charge), n(op.spend), op.cap === null ? '-1' : n(op.cap), op.period, String(rate.length), n(op.rate?.now ?? 0), ...rate.flatMap((c) => [n(c.limit), n(c.cost)])];
    }
    case 'settle': {
      const rate = op.rate ?? [];
      return ['settle', n(op.allowance), n(op.wallet), op.period, n(op.spent), String(rate.length), ...rate.map((a) => n(a.delta))];
    }
    case 'credit':
      return ['credit', n(op.wallet), n(op.allowance), op.funded ? '1' : '0'];
  }
}

/** The script's keys: the tenant's hash, then each rate charge's current and previous minute (reserve) or each adjusted minute (settle). */
export function scriptKeys(key: string, op: BudgetOp): string[] {
  if (op.kind === 'reserve' && op.rate) {
    const w = windowOf(op.rate.now);
    return [key, ...op.rate.charges.flatMap((c) => [counterKey(c.key, w), counterKey(c.key, w - 1)])];
  }
  if (op.kind === 'settle' && op.rate) return [key, ...op.rate.map((a) => counterKey(a.key, a.window))];
  return [key];
}

/** The script's reply: [code, a, b]. 0 ok (a from allowance, b from wallet), 1 uninit, 2-4 refused (a spent), 5 rate limited (a the charge, 1-based; b the wait). */
export function readReply(reply: unknown): BudgetAnswer {
  const [code, a, b] = (reply as (number | string)[]).map(Number) as [number, number, number];
  if (code === 0) return { kind: 'ok', allowance: a, wallet: b };
  if (code === 1) return { kind: 'uninit' };
  if (code === 5) return { kind: 'limited', index: a - 1, waitMs: b };
  return { kind: 'refused', reason: REASONS[code - 2]!, spent: a };
}

/**
 * The Redis side. `reserve` takes the charge from the allowance first, then the wallet, and
 * refuses (changing nothing) when the month's spend would pass the cap or the two cannot cover
 * it. `settle` and `credit` add signed amounts to a tenant already loaded, and do nothing to one
 * that is not (its next load reads the ledger, which already holds them).
 */
export const BUDGET_SCRIPT = `${RATE_LUA}
local key = KEYS[1]
local op = ARGV[1]
if op == 'settle' then rate_adjust(2, 7, tonumber(ARGV[6] or '0')) end
local function num(f) return tonumber(redis.call('HGET', key, f) or '0') end
local function fmt(x) return string.format('%.0f', x) end
local function incr(f, x) if x ~= 0 then redis.call('HINCRBY', key, f, fmt(x)) end end
if op == 'init' then
  if redis.call('EXISTS', key) == 0 then
    redis.call('HSET', key, 'w', ARGV[2], 'a', ARGV[3], 'f', ARGV[4])
  end
  redis.call('HSETNX', key, 's:' .. ARGV[5], ARGV[6])
  return {0, 0, 0}
end
if redis.call('EXISTS', key) == 0 then
  if op == 'reserve' then return {1, 0, 0} end
  return {0, 0, 0}
end
if op == 'reserve' then
  local sf = 's:' .. ARGV[5]
  if redis.call('HEXISTS', key, sf) == 0 then return {1, 0, 0} end
  local charge = tonumber(ARGV[2])
  local spend = tonumber(ARGV[3])
  local cap = tonumber(ARGV[4])
  local spent = num(sf)
  local nrate = tonumber(ARGV[6] or '0')
  if nrate > 0 then
    local which, wait = rate_check(2, 8, nrate, tonumber(ARGV[7]))
    if which > 0 then return {5, which, math.ceil(wait)} end
  end
  if cap >= 0 and spent + spend > cap then return {2, fmt(spent), 0} end
  local a = num('a')
  local w = num('w')
  if a < 0 then a = 0 end
  if a + w < charge then
    if num('f') == 1 then return {3, fmt(spent), 0} end
    return {4, fmt(spent), 0}
  end
  local fromA = math.min(a, charge)
  local fromW = charge - fromA
  incr('a', -fromA)
  incr('w', -fromW)
  incr(sf, spend)
  if nrate > 0 then rate_count(2, 8, nrate) end
  return {0, fmt(fromA), fmt(fromW)}
end
if op == 'settle' then
  redis.call('HINCRBY', key, 'a', ARGV[2])
  redis.call('HINCRBY', key, 'w', ARGV[3])
  if redis.call('HEXISTS', key, 's:' .. ARGV[4]) == 1 then redis.call('HINCRBY', key, 's:' .. ARGV[4], ARGV[5]) end
  return {0, 0, 0}
end
if op == 'credit' then
  redis.call('HINCRBY', key, 'w', ARGV[2])
  redis.call('HINCRBY', key, 'a', ARGV[3])
  if ARGV[4] == '1' then redis.call('HSET', key, 'f', '1') end
  return {0, 0, 0}
end
return redis.error_reply('unknown budget op ' .. op)
`;

/** The same steps on an in-process map (the embedded store): one call runs to its end before the next. */
export function applyBudgetOp(hashes: Map<string, Map<string, number>>, rates: RateCounters, key: string, op: BudgetOp): BudgetAnswer {
  if (op.kind === 'settle' && op.rate) rates.adjust(op.rate);
  const h = hashes.get(key);
  const ok = (allowance = 0, wallet = 0): BudgetAnswer => ({ kind: 'ok', allowance, wallet });
  if (op.kind === 'init') {
    const t = h ?? new Map([['w', Math.round(op.wallet)], ['a', Math.round(op.allowance)], ['f', op.funded ? 1 : 0]]);
    if (!t.has(`s:${op.period}`)) t.set(`s:${op.period}`, Math.round(op.spent));
    hashes.set(key, t);
    return ok();
  }
  if (!h) return op.kind === 'reserve' ? { kind: 'uninit' } : ok();
  const add = (f: string, x: number) => h.set(f, (h.get(f) ?? 0) + Math.round(x));
  if (op.kind === 'reserve') {
    const sf = `s:${op.period}`;
    if (!h.has(sf)) return { kind: 'uninit' };
    const spent = h.get(sf)!;
    const charge = Math.round(op.charge);
    const rate = op.rate && op.rate.charges.length > 0 ? op.rate : null;
    const limited = rate ? rates.check(rate.charges, rate.now) : null;
    if (limited) return { kind: 'limited', index: limited.index, waitMs: limited.waitMs };
    if (op.cap !== null && spent + op.spend > op.cap) return { kind: 'refused', reason: 'spend_cap_reached', spent };
    const a = Math.max(0, h.get('a') ?? 0);
    const w = h.get('w') ?? 0;
    if (a + w < charge) return { kind: 'refused', reason: h.get('f') === 1 ? 'wallet_empty' : 'dev_allowance_exhausted', spent };
    if (rate) rates.count(rate.charges, rate.now);
    const fromA = Math.min(a, charge);
    add('a', -fromA);
    add('w', -(charge - fromA));
    add(sf, op.spend);
    return ok(fromA, charge - fromA);
  }
  if (op.kind === 'settle') {
    add('a', op.allowance);
    add('w', op.wallet);
    if (h.has(`s:${op.period}`)) add(`s:${op.period}`, op.spent);
    return ok();
  }
  add('w', op.wallet);
  add('a', op.allowance);
  if (op.funded) h.set('f', 1);
  return ok();
}
