// Keeps a failing vendor out for a while. After `threshold` retryable failures in a
// row a provider's circuit opens: calls skip it (and fail over) until `cooldownMs`
// has passed; then one trial call is let through (half-open), and its outcome
// closes the circuit or opens it again. Per process: each replica learns on its own.

interface State {
  failures: number;
  openUntil: number;
  trialInFlight: boolean;
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
    if (!s) this.#states.set(key, (s = { failures: 0, openUntil: 0, trialInFlight: false }));
    return s;
  }

  /** Whether a call to this provider may go now; in half-open state only one trial may. */
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

  success(key: string): void {
    this.#states.delete(key);
  }

  failure(key: string): void {
    const s = this.#state(key);
    s.failures++;
    s.trialInFlight = false;
    if (s.failures >= this.#threshold) s.openUntil = this.#now() + this.#cooldownMs;
  }
}
