// Observed latency per model on this replica: an exponentially weighted mean of the upstream
// time of answers that succeeded. It breaks ties between policies that hold a step's bar when
// the tenant (tiebreak `latency`) or the call (`intent.objective: latency`) asks for speed.
// One number per model: bounded by the catalog, never by traffic.

/** Weight of the newest observation. */
const ALPHA = 0.2;

export class LatencyBoard {
  readonly #ms = new Map<string, number>();

  observe(model: string, ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) return;
    const prev = this.#ms.get(model);
    this.#ms.set(model, prev === undefined ? ms : prev + ALPHA * (ms - prev));
  }

  /** The model's mean latency in ms, or undefined when none of its answers was seen yet. */
  of(model: string): number | undefined {
    return this.#ms.get(model);
  }
}
