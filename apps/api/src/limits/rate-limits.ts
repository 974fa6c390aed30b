// Rate limits (design §10): requests and tokens per minute, for the tenant as a whole and for
// single keys, each set by the tenant (PUT /v1/settings/limits) within the platform's ceiling
// (RATE_LIMIT_CEILING_RPM / _TPM). A tenant with no limit of its own is held to the ceiling; with
// neither, nothing is counted. The counters are checked and counted with the budget's reservation
// (billing/budget.ts), in one atomic step shared by every replica (Redis) or in-process.
//
// Tokens are reserved before dispatch, as the spend cap reserves money: the prompt's tokens plus
// the output the call may write (its max_tokens, else DEFAULT_OUTPUT_RESERVE), then settled to
// what the answer used (or given back when it failed). Concurrent calls therefore cannot together
// pass the limit on answers none of them had counted yet. A call whose own estimate exceeds a
// limit reserves the whole limit (it goes alone in its minute); only a prompt alone larger than
// the limit is refused outright.
import type { RateLimitSettings, RateWindow } from '@optimizer/schema';
import { ApiError } from '../errors.ts';
import type { Principal } from '../tenancy/key-cache.ts';
import type { TopicSettings } from '../settings/topic-settings.ts';
import type { RateCharge } from '../hot/rate-window.ts';

export interface Ceiling {
  rpm: number | undefined;
  tpm: number | undefined;
}

/** A limit a call is counted against, with what it is, for the refusal's message. */
export interface LimitCharge extends RateCharge {
  scope: 'key' | 'tenant';
  metric: 'requests' | 'tokens';
}

/** A 429 from a rate limit: `metric` says whether a closer count of the prompt's tokens could change it. */
export class RateLimitedError extends ApiError {
  readonly metric: 'requests' | 'tokens';
  constructor(message: string, retryAfterS: number, metric: 'requests' | 'tokens') {
    super('rate_limited', message, { headers: { 'retry-after': String(retryAfterS) } });
    this.metric = metric;
  }
}

const lower = (a: number | null | undefined, b: number | undefined): number | undefined => (a == null ? b : b === undefined ? a : Math.min(a, b));

/** Output tokens reserved for a call that sets no max_tokens (settled to the answer's own count). */
export const DEFAULT_OUTPUT_RESERVE = 1_024;

/** The output a chat request may write, for its token reservation: max_completion_tokens or max_tokens (× n), else the default. */
export function outputReserve(body: Record<string, unknown>): number {
  const asked = [body.max_completion_tokens, body.max_tokens].find((v): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0);
  const n = typeof body.n === 'number' && Number.isFinite(body.n) && body.n > 1 ? Math.min(body.n, 128) : 1;
  return Math.ceil(Math.min(asked ?? DEFAULT_OUTPUT_RESERVE, 1e9)) * n;
}

export class RateLimits {
  readonly #settings: TopicSettings<RateLimitSettings>;
  readonly #ceiling: Ceiling;

  constructor(settings: TopicSettings<RateLimitSettings>, ceiling: Ceiling) {
    this.#settings = settings;
    this.#ceiling = ceiling;
  }

  get ceiling(): Ceiling {
    return this.#ceiling;
  }

  /**
   * The limits one call is counted against: one request, and `tokens` (the prompt's bound) plus
   * `output` (what it may write), settled to the actual. Per limit, an estimate above the limit is
   * held to the limit (the call then needs its minute to itself); a prompt alone above it keeps its
   * size, which the limit refuses as never fitting.
   */
  charges(p: Principal, tokens: number, output = 0): LimitCharge[] {
    const set = this.#settings.get(p.accountId);
    const out: LimitCharge[] = [];
    const add = (scope: 'key' | 'tenant', id: string, w: RateWindow | undefined, ceilingToo: boolean) => {
      const rpm = ceilingToo ? lower(w?.requests_per_minute, this.#ceiling.rpm) : (w?.requests_per_minute ?? undefined);
      const tpm = ceilingToo ? lower(w?.tokens_per_minute, this.#ceiling.tpm) : (w?.tokens_per_minute ?? undefined);
      if (rpm !== undefined) out.push({ key: `rl:${id}:r`, limit: rpm, cost: 1, scope, metric: 'requests' });
      if (tpm !== undefined) out.push({ key: `rl:${id}:t`, limit: tpm, cost: tokens > tpm ? tokens : Math.min(tokens + output, tpm), scope, metric: 'tokens' });
    };
    if (set.keys.length > 0) {
      const own = set.keys.find((k) => k.key_id === p.keyId);
      if (own) add('key', `${p.accountId}:k:${p.keyId}`, own, false); // within the ceiling already (checked on write)
    }
    add('tenant', p.accountId, set.tenant, true);
    return out;
  }

  /** The 429 for a refused charge: which limit, its value, and when to retry. */
  refusal(c: LimitCharge, waitMs: number): RateLimitedError {
    const who = c.scope === 'key' ? 'this key' : 'this tenant';
    const what = c.metric === 'requests' ? 'requests' : 'tokens';
    if (waitMs < 0) {
      return new RateLimitedError(
        `This call's ${c.cost} prompt tokens exceed the limit of ${c.limit} tokens per minute for ${who} on their own: send a shorter prompt or raise tokens_per_minute at PUT /v1/settings/limits.`,
        60,
        c.metric,
      );
    }
    const after = Math.max(1, Math.ceil(waitMs / 1000));
    return new RateLimitedError(`Rate limit of ${c.limit} ${what} per minute for ${who} reached: retry after ${after} s, or raise it at PUT /v1/settings/limits.`, after, c.metric);
  }

  /** Refuses (422, naming the field) a setting above the platform's ceiling. */
  checkCeiling(q: RateLimitSettings): void {
    const over = (w: RateWindow, path: string) => {
      for (const [field, ceiling] of [['requests_per_minute', this.#ceiling.rpm], ['tokens_per_minute', this.#ceiling.tpm]] as const) {
        const v = w[field];
        if (v !== null && ceiling !== undefined && v > ceiling) {
          throw new ApiError('validation_failed', `${path}.${field} is ${v}, above the platform's ceiling of ${ceiling} ${field.replaceAll('_', ' ')}: set at most ${ceiling}, or null for the ceiling itself.`, { param: `${path}.${field}` });
        }
      }
    };
    over(q.tenant, 'tenant');
    q.keys.forEach((k, i) => over(k, `keys.${i}`));
  }
}
