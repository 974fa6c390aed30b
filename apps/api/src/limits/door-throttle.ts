// Abuse limits on the doors a caller reaches without a valid key (docs/decisions.md, "Hostile
// input"): signup, login, the email confirmation, the estimate and the admin routes count every
// attempt per client address; bearer keys count only their failures (invalid_api_key,
// invalid_admin_key). Past a door's limit the answer is 429 `rate_limited` with Retry-After.
// Each limit is a sliding window estimated from two fixed-window counters in the hot store, as
// the tenants' rate limits are (hot/rate-window.ts): the previous window's count weighted by the
// share of it still inside the window, plus this one's. A fixed window let an address make twice
// its limit across a window's edge, and forgot a flood the moment the edge passed. Replicas
// sharing Redis share the counters; an address past the bad-key limit is also remembered here, so
// its next unknown keys are refused before any lookup.
import { isIP } from 'node:net';
import { ApiError } from '../errors.ts';
import { counterKey, rateWait } from '../hot/rate-window.ts';
import type { HotStore } from '../hot/store.ts';

export type Door = 'signup' | 'login' | 'confirm' | 'estimate' | 'admin' | 'bad_key';

export interface DoorLimit {
  /** Attempts (failures, for `bad_key`) one client address may make per window. */
  limit: number;
  windowMs: number;
}

export type DoorLimits = Record<Door, DoorLimit>;

const WHAT: Record<Door, string> = {
  signup: 'signups',
  login: 'login attempts',
  confirm: 'confirmation attempts',
  estimate: 'estimates',
  admin: 'admin requests',
  bad_key: 'requests with an invalid key',
};

/**
 * The address a limit counts against: IPv4 as it is (an IPv4-mapped IPv6 address as its IPv4),
 * IPv6 by its /64, the block one subscriber holds, so rotating within it does not escape.
 */
export function clientBucket(ip: string | undefined): string {
  if (!ip) return 'unknown';
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (v4) return v4[1]!;
  if (isIP(ip) !== 6) return ip;
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = ip.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/**
 * The client address on the socket path, as Fastify's `request.ip` gives it: the peer, or with
 * trust proxy on, the first address of X-Forwarded-For (the client the proxy saw).
 */
export function clientAddress(remote: string | undefined, forwardedFor: string | undefined, trustProxy: boolean): string | undefined {
  if (trustProxy && forwardedFor) {
    const first = forwardedFor.split(',')[0]!.trim();
    if (first !== '') return first;
  }
  return remote;
}

export class DoorThrottle {
  readonly #hot: HotStore;
  readonly #limits: DoorLimits;
  /** Addresses past the bad-key limit on this replica, until when (ms). */
  readonly #blocked = new Map<string, number>();

  constructor(hot: HotStore, limits: DoorLimits) {
    this.#hot = hot;
    this.#limits = limits;
  }

  #refusal(door: Door, retryMs: number): ApiError {
    const { limit, windowMs } = this.#limits[door];
    const after = Math.max(1, Math.ceil(retryMs / 1000));
    const per = windowMs % 3_600_000 === 0 ? `${windowMs / 3_600_000} h` : windowMs % 60_000 === 0 ? `${windowMs / 60_000} min` : `${windowMs / 1000} s`;
    return new ApiError('rate_limited', `Too many ${WHAT[door]} from this address (${limit} per ${per}): retry after ${after} s.`, { headers: { 'retry-after': String(after) } });
  }

  /**
   * Counts one attempt (refused ones too: a flood stays refused while it goes on); the 429 to
   * answer when it does not fit under the door's sliding window, else null.
   */
  async #count(door: Door, ip: string | undefined): Promise<ApiError | null> {
    const { limit, windowMs } = this.#limits[door];
    const now = Date.now();
    const window = Math.floor(now / windowMs);
    const key = `door:${door}:${clientBucket(ip)}`;
    // this window's counter is read as the previous one through the next window: it lives two
    const [cur, prev] = await Promise.all([this.#hot.count(counterKey(key, window), 2 * windowMs + 1_000), this.#hot.get(counterKey(key, window - 1))]);
    const wait = rateWait(limit, 1, Number(prev ?? 0), cur - 1, now - window * windowMs, windowMs);
    if (wait === 0) return null;
    return this.#refusal(door, wait > 0 ? wait : windowMs);
  }

  /** Counts one attempt at `door`; throws the 429 once the address is past its limit. */
  async hit(door: Exclude<Door, 'bad_key'>, ip: string | undefined): Promise<void> {
    const refusal = await this.#count(door, ip);
    if (refusal) throw refusal;
  }

  /**
   * A bearer key was refused (`err`): counts the failure, and answers the error to give, the
   * 429 once the address is past the bad-key limit (remembered, see `blocked`), else `err`.
   */
  async failed(ip: string | undefined, err: ApiError): Promise<ApiError> {
    const refusal = await this.#count('bad_key', ip);
    if (!refusal) return err;
    this.#blocked.set(clientBucket(ip), Date.now() + Number(refusal.headers['retry-after']) * 1000);
    if (this.#blocked.size > 10_000) this.#sweep();
    return refusal;
  }

  /** The 429 for an address this replica saw pass the bad-key limit, while its window lasts; else null. */
  blocked(ip: string | undefined): ApiError | null {
    if (this.#blocked.size === 0) return null;
    const bucket = clientBucket(ip);
    const until = this.#blocked.get(bucket);
    if (until === undefined) return null;
    const left = until - Date.now();
    if (left <= 0) {
      this.#blocked.delete(bucket);
      return null;
    }
    return this.#refusal('bad_key', left);
  }

  #sweep(): void {
    const now = Date.now();
    for (const [k, until] of this.#blocked) if (until <= now) this.#blocked.delete(k);
  }
}

/** The doors' limits from the configuration (config.ts, DOOR_*). */
export function doorLimits(c: { DOOR_SIGNUP_PER_HOUR: number; DOOR_LOGIN_PER_MINUTE: number; DOOR_ESTIMATE_PER_MINUTE: number; DOOR_ADMIN_PER_MINUTE: number; DOOR_BAD_KEY_PER_MINUTE: number }): DoorLimits {
  const minute = 60_000;
  return {
    signup: { limit: c.DOOR_SIGNUP_PER_HOUR, windowMs: 60 * minute },
    login: { limit: c.DOOR_LOGIN_PER_MINUTE, windowMs: minute },
    // a confirmation follows a signup: as many per hour as signups, and a mistyped token or two
    confirm: { limit: c.DOOR_SIGNUP_PER_HOUR * 2, windowMs: 60 * minute },
    estimate: { limit: c.DOOR_ESTIMATE_PER_MINUTE, windowMs: minute },
    admin: { limit: c.DOOR_ADMIN_PER_MINUTE, windowMs: minute },
    bad_key: { limit: c.DOOR_BAD_KEY_PER_MINUTE, windowMs: minute },
  };
}
