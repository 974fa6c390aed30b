// The learning queue: a bounded queue per replica of the work routed calls leave once they
// are answered (learn.ts). At most `concurrency` jobs run at once and at most `capacity` wait;
// an offer beyond that is refused and the caller drops the learning, never an answer (a
// dropped job gives back what it reserved). `close` stops taking work, drops what waits, gives
// what runs `graceMs` to finish and then aborts it: an aborted job still meters what it spent.
import type { Logger } from '../logger.ts';

export interface LearningJob {
  /** Runs the learning; `signal` aborts it at shutdown or after its time limit. Never throws to the queue. */
  run(signal: AbortSignal): Promise<void>;
  /** Abandons a job that never ran: gives back what it reserved. */
  drop(): void;
}

export interface LearningStats {
  queued: number;
  running: number;
  dropped: number;
  done: number;
}

export class LearningQueue {
  readonly #concurrency: number;
  readonly #capacity: number;
  readonly #timeoutMs: number;
  readonly #logger: Logger;
  readonly #waiting: LearningJob[] = [];
  readonly #running = new Set<Promise<void>>();
  readonly #stop = new AbortController();
  readonly #idle: (() => void)[] = [];
  #closed = false;
  #dropped = 0;
  #done = 0;

  constructor(opts: { concurrency: number; capacity: number; timeoutMs: number; logger: Logger }) {
    this.#concurrency = opts.concurrency;
    this.#capacity = opts.capacity;
    this.#timeoutMs = opts.timeoutMs;
    this.#logger = opts.logger;
  }

  /** Takes a job, or refuses it (the queue is full or closed): the caller then drops it. */
  offer(job: LearningJob): boolean {
    if (this.#closed || (this.#running.size >= this.#concurrency && this.#waiting.length >= this.#capacity)) {
      this.#dropped++;
      return false;
    }
    if (this.#running.size < this.#concurrency) this.#start(job);
    else this.#waiting.push(job);
    return true;
  }

  get stats(): LearningStats {
    return { queued: this.#waiting.length, running: this.#running.size, dropped: this.#dropped, done: this.#done };
  }

  /** Settles once nothing waits or runs (tests and benchmarks read what a call taught its step). */
  idle(): Promise<void> {
    if (this.#running.size === 0 && this.#waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #start(job: LearningJob): void {
    const signal = AbortSignal.any([this.#stop.signal, AbortSignal.timeout(this.#timeoutMs)]);
    const run: Promise<void> = job
      .run(signal)
      .catch((err: unknown) => this.#logger.warn({ err }, 'learning after an answer failed; the step learns from later calls'))
      .finally(() => {
        this.#running.delete(run);
        this.#done++;
        const next = this.#closed ? undefined : this.#waiting.shift();
        if (next) this.#start(next);
        else if (this.#running.size === 0 && this.#waiting.length === 0) for (const wake of this.#idle.splice(0)) wake();
      });
    this.#running.add(run);
  }

  /**
   * Graceful shutdown: nothing new is taken, what waits is dropped (its reservation given back),
   * what runs has `graceMs` to finish, then is aborted and waited for (it meters what it spent).
   */
  async close(graceMs: number): Promise<void> {
    this.#closed = true;
    for (const job of this.#waiting.splice(0)) {
      this.#dropped++;
      job.drop();
    }
    if (this.#running.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([Promise.all(this.#running), grace]);
    clearTimeout(timer);
    if (this.#running.size > 0) {
      this.#logger.info({ running: this.#running.size }, 'learning still running at shutdown: aborted, and what it spent is metered');
      this.#stop.abort();
      await Promise.all(this.#running);
    }
    for (const wake of this.#idle.splice(0)) wake();
  }
}
