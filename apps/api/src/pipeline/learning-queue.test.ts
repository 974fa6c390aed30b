// The learning queue's bounds: at most `concurrency` jobs run and `capacity` wait; past both a
// job is refused (its caller drops it); shutdown drops what waits, lets what runs finish within
// its grace and aborts the rest, waiting for each to end (it meters what it spent).
import { describe, expect, it } from 'vitest';
import { LearningQueue, type LearningJob } from './learning-queue.ts';
import { createLogger } from '../logger.ts';
import { Writable } from 'node:stream';

const logger = createLogger('error', new Writable({ write: (_c, _e, cb) => cb() }));

/** A job that runs until released (or aborted), recording what happened to it. */
function job(log: string[], name: string): LearningJob & { release: () => void } {
  let release = () => {};
  return {
    release: () => release(),
    run: (signal) =>
      new Promise<void>((resolve) => {
        log.push(`${name} ran`);
        release = () => (log.push(`${name} done`), resolve());
        signal.addEventListener('abort', () => (log.push(`${name} aborted`), resolve()), { once: true });
      }),
    drop: () => log.push(`${name} dropped`),
  };
}

describe('the learning queue', () => {
  it('runs at most `concurrency` jobs, queues `capacity` more and refuses the rest', async () => {
    const log: string[] = [];
    const q = new LearningQueue({ concurrency: 2, capacity: 1, timeoutMs: 60_000, logger });
    const jobs = ['a', 'b', 'c', 'd'].map((n) => job(log, n));
    expect(jobs.map((j) => q.offer(j))).toEqual([true, true, true, false]);
    expect(q.stats).toEqual({ queued: 1, running: 2, dropped: 1, done: 0 });
    expect(log).toEqual(['a ran', 'b ran']);
    jobs[0]!.release();
    await expect.poll(() => log).toContain('c ran'); // a slot freed: the waiting job runs
    jobs[1]!.release();
    jobs[2]!.release();
    await q.idle();
    expect(q.stats).toEqual({ queued: 0, running: 0, dropped: 1, done: 3 });
  });

  it('at shutdown drops what waits, gives what runs its grace, then aborts it and waits for it', async () => {
    const log: string[] = [];
    const q = new LearningQueue({ concurrency: 1, capacity: 5, timeoutMs: 60_000, logger });
    const [running, waiting] = [job(log, 'running'), job(log, 'waiting')];
    q.offer(running);
    q.offer(waiting);
    await q.close(50);
    expect(log).toEqual(['running ran', 'waiting dropped', 'running aborted']);
    expect(q.offer(job(log, 'late'))).toBe(false); // closed: nothing new is taken
  });

  it('lets a job that ends within the grace finish, unaborted', async () => {
    const log: string[] = [];
    const q = new LearningQueue({ concurrency: 1, capacity: 0, timeoutMs: 60_000, logger });
    const j = job(log, 'quick');
    q.offer(j);
    setTimeout(() => j.release(), 20);
    await q.close(5_000);
    expect(log).toEqual(['quick ran', 'quick done']);
  });

  it('aborts a job that outlasts its time limit', async () => {
    const log: string[] = [];
    const q = new LearningQueue({ concurrency: 1, capacity: 0, timeoutMs: 50, logger });
    q.offer(job(log, 'slow'));
    await q.idle();
    expect(log).toEqual(['slow ran', 'slow aborted']);
  });
});
