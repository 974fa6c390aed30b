// Rate counters (design §10: 429 with Retry-After): a sliding window of one minute, estimated
// from two fixed one-minute counters, the way Cloudflare's limiter does: the previous minute's
// count weighted by the share of it still inside the window, plus this minute's. Two numbers per
// limit, exact at each minute's edge and without a fixed window's double burst across it. Checked
// and counted in the same atomic step as the budget's reservation (billing/hot-budget.ts): a Lua
// script on Redis, these same steps in-process for the embedded store.

export const WINDOW_MS = 60_000;

/** One limit a call is counted against: `key` names its counters (one per minute: `key:<minute>`). */
export interface RateCharge {
  key: string;
  limit: number;
  cost: number;
}

/** A settled correction to a counter a call was charged on (tokens: the actual less the reserved). */
export interface RateAdjust {
  key: string;
  window: number;
  delta: number;
}

export const windowOf = (now: number): number => Math.floor(now / WINDOW_MS);
export const counterKey = (key: string, window: number): string => `${key}:${window}`;

/**
 * How long until `cost` more fits under `limit` (ms), 0 when it fits now, -1 when it never can
 * (a single call larger than the limit). `prev` and `cur`: the previous and current window's
 * counts; `elapsed`: ms into the current window (`windowMs`, a minute for the tenants' limits; the
 * doors without a key have hour-long ones too). The same arithmetic as `RATE_LUA`.
 */
export function rateWait(limit: number, cost: number, prev: number, cur: number, elapsed: number, windowMs = WINDOW_MS): number {
  if (prev * (1 - elapsed / windowMs) + cur + cost <= limit) return 0;
  if (cost > limit) return -1;
  if (cur + cost <= limit) return Math.max(1, windowMs * (1 - (limit - cur - cost) / prev) - elapsed);
  const after = cur > 0 ? windowMs * (1 - (limit - cost) / cur) : 0;
  return windowMs - elapsed + Math.max(0, after);
}

/**
 * The Lua side, prepended to the budget script. `rate_check(first_key, first_arg, n, now)` reads
 * n limits (KEYS: current and previous counter of each; ARGV: limit and cost of each) and answers
 * the 1-based index of the first that refuses and its wait, or 0; `rate_count` then adds the costs.
 */
export const RATE_LUA = `
local RATE_W = ${WINDOW_MS}
local function rate_wait(limit, cost, prev, cur, el)
  if prev * (1 - el / RATE_W) + cur + cost <= limit then return 0 end
  if cost > limit then return -1 end
  if cur + cost <= limit then return math.max(1, RATE_W * (1 - (limit - cur - cost) / prev) - el) end
  local after = 0
  if cur > 0 then after = RATE_W * (1 - (limit - cost) / cur) end
  return RATE_W - el + math.max(0, after)
end
local function rate_check(k0, a0, n, now)
  local el = now % RATE_W
  for i = 0, n - 1 do
    local cur = tonumber(redis.call('GET', KEYS[k0 + 2 * i]) or '0')
    local prev = tonumber(redis.call('GET', KEYS[k0 + 2 * i + 1]) or '0')
    local wait = rate_wait(tonumber(ARGV[a0 + 2 * i]), tonumber(ARGV[a0 + 2 * i + 1]), prev, cur, el)
    if wait ~= 0 then return i + 1, wait end
  end
  return 0, 0
end
local function rate_count(k0, a0, n)
  for i = 0, n - 1 do
    -- a cost of 0 still makes the minute's counter, as the in-process counters do: the call's settle then
    -- finds it and adds what the call used beyond what it reserved (without it, Redis dropped that and memory kept it)
    redis.call('INCRBY', KEYS[k0 + 2 * i], ARGV[a0 + 2 * i + 1])
    redis.call('PEXPIRE', KEYS[k0 + 2 * i], 2 * RATE_W + 5000)
  end
end
local function rate_adjust(k0, a0, n)
  for i = 0, n - 1 do
    if redis.call('EXISTS', KEYS[k0 + i]) == 1 then redis.call('INCRBY', KEYS[k0 + i], ARGV[a0 + i]) end
  end
end
`;

/** The in-process counters: the same steps on a map, dropping minutes that can no longer count. */
export class RateCounters {
  readonly #counts = new Map<string, number>();
  #window = 0;

  /** The first limit that refuses: its index and wait in ms (-1: never); null when every cost fits. */
  check(charges: readonly RateCharge[], now: number): { index: number; waitMs: number } | null {
    const w = windowOf(now);
    this.#forget(w);
    const elapsed = now % WINDOW_MS;
    for (let i = 0; i < charges.length; i++) {
      const c = charges[i]!;
      const wait = rateWait(c.limit, c.cost, this.#counts.get(counterKey(c.key, w - 1)) ?? 0, this.#counts.get(counterKey(c.key, w)) ?? 0, elapsed);
      if (wait !== 0) return { index: i, waitMs: Math.ceil(wait) };
    }
    return null;
  }

  /** Counts every cost in the current minute (after `check` found they fit). */
  count(charges: readonly RateCharge[], now: number): void {
    const w = windowOf(now);
    for (const c of charges) {
      const k = counterKey(c.key, w);
      this.#counts.set(k, (this.#counts.get(k) ?? 0) + c.cost);
    }
  }

  adjust(adjusts: readonly RateAdjust[]): void {
    for (const a of adjusts) {
      const k = counterKey(a.key, a.window);
      const v = this.#counts.get(k);
      if (v !== undefined) this.#counts.set(k, v + a.delta);
    }
  }

  #forget(w: number): void {
    if (w === this.#window) return;
    this.#window = w;
    for (const k of this.#counts.keys()) if (Number(k.slice(k.lastIndexOf(':') + 1)) < w - 1) this.#counts.delete(k);
  }
}
