// Graded scores kept per policy and for the baseline: the newest SAMPLE_WINDOW of them, with
// running sums so their mean and spread cost nothing to read.
/**
 * The most recent graded samples kept per policy and for the baseline. Past this the
 * estimates are as narrow as they usefully get, and a step reporting outcomes for months
 * neither grows without bound nor makes each decision slower than the last.
 */
export const SAMPLE_WINDOW = 10_000;

/** Keeps the newest `SAMPLE_WINDOW` of a list (amortized: trims once it is half as long again). */
export function trimmed<T>(xs: T[]): T[] {
  return xs.length > SAMPLE_WINDOW * 1.5 ? xs.slice(xs.length - SAMPLE_WINDOW) : xs;
}

/** Scores with their running sums, so their mean and spread cost nothing to read. */
export class Scores {
  values: number[] = [];
  #sum = 0;
  #sumSq = 0;

  push(x: number): void {
    this.values.push(x);
    this.#sum += x;
    this.#sumSq += x * x;
    const kept = trimmed(this.values);
    if (kept !== this.values) {
      this.values = kept;
      this.#sum = kept.reduce((a, b) => a + b, 0);
      this.#sumSq = kept.reduce((a, b) => a + b * b, 0);
    }
  }

  get length(): number {
    return this.values.length;
  }

  mean(): number {
    return this.#sum / this.values.length;
  }

  /** The sample standard deviation around the mean. */
  sd(): number {
    const n = this.values.length;
    const m = this.mean();
    return Math.sqrt(Math.max(0, (this.#sumSq - n * m * m) / (n - 1)));
  }
}
