// The embedded database runs on a thread of its own: the serving thread's event loop stays free
// while it works, closing ends the thread (its data kept), a failed start leaves no thread, and
// the thread crashing is the database going down (the dependency-down answer, not a bug's 500).
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { BroadcastChannel, threadId } from 'node:worker_threads';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { isDependencyDown } from '../failures/dependency-down.ts';
import { createLogger } from '../logger.ts';
import { openDatabase } from './database.ts';
import { EMBEDDED_THREAD_NAME, startEmbedded } from './embedded.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A fresh data directory, holding the run's migrated template when there is one (no initdb to wait for). */
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'embedded-thread-'));
  dirs.push(dir);
  const template = inject('pgliteTemplate') as string | undefined;
  if (template && existsSync(join(template, 'pgdata'))) cpSync(join(template, 'pgdata'), join(dir, 'pgdata'), { recursive: true });
  return dir;
}

/** The OS threads of this process that are an embedded database's. */
function databaseThreads(): number {
  return readdirSync('/proc/self/task').filter((tid) => {
    try {
      return readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim() === EMBEDDED_THREAD_NAME;
    } catch {
      return false; // a thread that ended while we looked
    }
  }).length;
}

/** A logger whose lines are kept. */
function capturing(): { logger: ReturnType<typeof createLogger>; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString('utf8')), done()) });
  return { logger: createLogger('warn', sink), lines };
}

describe('the embedded database thread', () => {
  it('keeps the serving thread responsive while a heavy query runs', async () => {
    const db = await openDatabase({ dataDir: dataDir(), logger: createLogger('silent') });
    try {
      // the timer's lateness is what a call waiting on this thread would wait
      let last = performance.now();
      let worstLag = 0;
      const tick = setInterval(() => {
        const now = performance.now();
        worstLag = Math.max(worstLag, now - last);
        last = now;
      }, 5);
      const started = performance.now();
      const [row] = (await db.em().getConnection().execute('select count(*)::int as n from generate_series(1, 3000000)')) as [{ n: number }];
      const queryMs = performance.now() - started;
      clearInterval(tick);
      expect(row.n).toBe(3_000_000);
      // in-process, the timer waited the whole query out (≈ queryMs); on its own thread it keeps ticking
      expect(worstLag).toBeLessThan(queryMs / 4);
    } finally {
      await db.close();
    }
  });

  it('runs on a thread of its own that closing ends, with the data kept for the next start', async () => {
    const dir = dataDir();
    const before = databaseThreads();
    const embedded = await startEmbedded(dir, createLogger('silent'));
    expect(embedded.threadId).not.toBe(threadId);
    expect(embedded.running).toBe(true);
    expect(databaseThreads()).toBe(before + 1);
    await embedded.stop();
    expect(embedded.running).toBe(false);
    expect(databaseThreads()).toBe(before);

    const db = await openDatabase({ dataDir: dir, logger: createLogger('silent') });
    await db.em().getConnection().execute('create table kept (v int); insert into kept values (42)');
    await db.close();
    expect(databaseThreads()).toBe(before);
    const again = await openDatabase({ dataDir: dir, logger: createLogger('silent') });
    try {
      expect(await again.em().getConnection().execute('select v from kept')).toEqual([{ v: 42 }]);
    } finally {
      await again.close();
    }
    expect(databaseThreads()).toBe(before);
  });

  it("rejects a start on a corrupt data directory with the thread's error, and leaves no thread", async () => {
    const dir = dataDir();
    rmSync(join(dir, 'pgdata'), { recursive: true, force: true });
    mkdirSync(join(dir, 'pgdata'));
    writeFileSync(join(dir, 'pgdata', 'PG_VERSION'), 'not a version\n');
    const before = databaseThreads();
    const err = await openDatabase({ dataDir: dir, logger: createLogger('silent') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/PGlite/);
    expect(databaseThreads()).toBe(before);
  });

  it('is the database going down when its thread crashes: queries fail as a dependency outage, it is logged, and the thread is started again on the same data', { timeout: 60_000 }, async () => {
    const channel = `embedded-crash-${process.pid}-${Date.now()}`;
    // the real thread, which throws (uncaught) when the test says so
    const script = {
      eval: `const { BroadcastChannel } = require('node:worker_threads');
        const ch = new BroadcastChannel(${JSON.stringify(channel)});
        ch.onmessage = () => { throw new Error('crashed on purpose'); };
        ch.unref();
        import(${JSON.stringify(new URL('./embedded-worker.ts', import.meta.url).href)});`,
    };
    const { logger, lines } = capturing();
    const before = databaseThreads();
    const db = await openDatabase({ dataDir: dataDir(), logger, embeddedScript: script });
    try {
      await db.em().getConnection().execute('create table kept (v int); insert into kept values (7)');
      const crash = new BroadcastChannel(channel);
      crash.postMessage('now');
      crash.close();
      await expect.poll(() => databaseThreads(), { timeout: 10_000, interval: 10 }).toBe(before);
      // the pooled connection that broke, then a new one that finds no server: both an outage
      for (let i = 0; i < 2; i++) {
        const err = await db.ping().then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).not.toBeNull();
        expect(isDependencyDown(err)).toBe(true);
      }
      expect(lines.join('')).toContain('crashed on purpose');
      // started again where it served, on the data it had: the next query finds it
      await expect.poll(() => db.ping().then(() => true, () => false), { timeout: 30_000, interval: 200 }).toBe(true);
      expect(databaseThreads()).toBe(before + 1);
      expect(await db.em().getConnection().execute('select v from kept')).toEqual([{ v: 7 }]);
      expect(lines.join('')).toContain('started again after its thread ended');
    } finally {
      await db.close(); // and closing ends the thread started again
    }
    expect(databaseThreads()).toBe(before);
  });

  it('stops trying to start a crashed thread again once it is stopped', async () => {
    const { logger, lines } = capturing();
    const before = databaseThreads();
    // a thread that serves, then ends on its own a moment later (timed from its ready message: on a loaded
    // machine the database's start alone took longer than a fixed 300 ms, and the thread ended before it served)
    const exitOnceReady = `const { parentPort } = process.getBuiltinModule('node:worker_threads'); const post = parentPort.postMessage.bind(parentPort); parentPort.postMessage = (m) => { post(m); if (m?.kind === 'ready') setTimeout(() => process.exit(3), 300).unref(); };`;
    const script = { eval: `${exitOnceReady} import(${JSON.stringify(new URL('./embedded-worker.ts', import.meta.url).href)});` };
    const embedded = await startEmbedded(dataDir(), logger, script);
    await expect.poll(() => embedded.running, { timeout: 10_000, interval: 10 }).toBe(false);
    await embedded.stop();
    await new Promise((r) => setTimeout(r, 1_500));
    expect(embedded.restarts).toBe(0);
    expect(databaseThreads()).toBe(before);
    expect(lines.join('')).toContain('its thread ended');
  });
});
