// Keeps a failing vendor out for a while, per vendor AND per key. After `threshold`
// vendor faults in a row (5xx, timeouts, connection failures, answers not in the vendor's
// shape) on one vendor with one key, that pair's circuit opens: its calls skip it (and
// fail over) until `cooldownMs` has passed; then one trial call is let through
// (half-open), and its outcome closes the circuit or opens it again. The key is known
// here only by a hash (`breakerKey`), never in clear. A key's own refusals (401/403, its
// own 429s, a request the vendor calls invalid) are not vendor faults and never count:
// one tenant's bad key cannot open the circuit for another tenant's or the platform's key.
// Per process: each replica learns on its own.
import { createHash } from 'node:crypto';

interface State {
  failures: number;
  openUntil: number;
  trialInFlight: boolean;
}

/** Above this many pairs remembered, the ones whose circuit is closed or whose cool-down ended are forgotten. */
const MAX_STATES = 10_000;

/** The circuit of one vendor with one key: the vendor's name and a short hash of the key. */
export function breakerKey(provider: string, apiKey: string): string {
  return `${provider}#${createHash('sha256').update(apiKey).digest('base64url').slice(0, 16)}`;
}

export class CircuitBreaker {
  readonly #threshold: number;
  readonly #cooldownMs: number;
  readonly #states = new Map<string, State>();
  readonly #now: () => number;

  constructor(opts: { threshold: number; cooldownMs: number; now?: () => number }) {
    this.#threshold = opts.threshold;
    this.#cooldownMs = opts.cooldownMs;
    this.#now = opts.now ?? Date.now;
  }

  #state(key: string): State {
    let s = this.#states.get(key);
    if (!s) {
      if (this.#states.size >= MAX_STATES) this.#forget();
      this.#states.set(key, (s = { failures: 0, openUntil: 0, trialInFlight: false }));
    }
    return s;
  }

  #forget(): void {
    const now = this.#now();
    for (const [k, s] of this.#states) if (s.failures < this.#threshold || (s.openUntil <= now && !s.trialInFlight)) this.#states.delete(k);
  }

  /** Whether a call on this circuit may go now; in half-open state only one trial may. */
  allow(key: string): boolean {
    const s = this.#states.get(key);
    if (!s || s.failures < this.#threshold) return true;
    if (this.#now() < s.openUntil) return false;
    if (s.trialInFlight) return false;
    s.trialInFlight = true;
    return true;
  }

  /** When the circuit will let a trial through, for the error message. */
  openUntil(key: string): number {
    return this.#states.get(key)?.openUntil ?? 0;
  }

  /** Whole seconds until the circuit lets a trial through (at least 1): the refusal's Retry-After. */
  retryAfterS(key: string): number {
    return Math.max(1, Math.ceil((this.openUntil(key) - this.#now()) / 1000));
  }

  success(key: string): void {
    this.#states.delete(key);
  }

  failure(key: string): void {
    const s = this.#state(key);
    s.failures++;
    s.trialInFlight = false;
    if (s.failures >= this.#threshold) s.openUntil = this.#now() + this.#cooldownMs;
  }

  /** A trial that ended with no verdict on the vendor (the key's own refusal, the client left): the next call may try. */
  settled(key: string): void {
    const s = this.#states.get(key);
    if (s) s.trialInFlight = false;
  }
}
