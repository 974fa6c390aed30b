// Runs the embedded database (PGlite and its socket server) on a thread of its own, so the
// queries it executes never take the event loop that serves calls. The gateway connects to
// it over the same unix socket (or loopback TCP) as before, with the same driver.
//
// Failures: one at start-up (a corrupt pgdata, a socket that cannot be bound) rejects the
// start with the thread's own error; the thread ending later is the database going down: the
// driver's connections fail with socket errors, which the dependency-down path answers 503
// `unavailable`, and /readyz says `database: down`. It is then started again on the same data
// and at the same address (PGlite recovers its files as PostgreSQL does after a crash), after
// RESTART_FIRST_MS and twice as long after each failed try up to RESTART_MAX_MS, so a
// database that went down comes back without the gateway being restarted, and the meter's
// write-ahead lines reach it then. Stopping closes PGlite in its thread (its files flushed)
// and waits for the thread to end; one that hangs is terminated.
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../logger.ts';
import type { EmbeddedConnection, EmbeddedWorkerData, FromEmbedded, ToEmbedded } from './embedded-worker.ts';

/** The thread's name, as the OS shows it (/proc/<pid>/task/<tid>/comm; at most 15 characters). */
export const EMBEDDED_THREAD_NAME = 'embedded-db';

/** How long stopping waits for PGlite to close and its thread to end before ending it. */
const STOP_WAIT_MS = 15_000;
/** How long after the thread ended it is started again, and the longest wait between tries. */
export const RESTART_FIRST_MS = 1_000;
export const RESTART_MAX_MS = 30_000;

export interface Embedded {
  connection: EmbeddedConnection;
  /** The database thread's id (worker_threads), never the serving thread's 0; a restarted thread's once it serves. */
  readonly threadId: number;
  /** False while no thread serves: after a stop, or after a crash until the restart serves. */
  readonly running: boolean;
  /** Times the thread was started again after it ended unasked. */
  readonly restarts: number;
  stop(): Promise<void>;
}

type Failure = Extract<FromEmbedded, { kind: 'failed' }>['error'];
type Script = URL | { eval: string };

function asError(f: Failure): Error {
  const err = new Error(f.message);
  err.name = f.name;
  if (f.stack) err.stack = f.stack;
  if (f.code) (err as NodeJS.ErrnoException).code = f.code;
  return err;
}

/** One database thread that serves: its connection, and its end (with the uncaught error that ended it, if one did). */
interface Thread {
  worker: Worker;
  connection: EmbeddedConnection;
  running(): boolean;
  exited: Promise<{ code: number; crash: unknown }>;
}

/** Starts one thread and waits until it serves; rejects (and leaves no thread) when it cannot. */
async function startThread(data: EmbeddedWorkerData, script: Script): Promise<Thread> {
  const worker = new Worker(script instanceof URL ? script : script.eval, {
    eval: !(script instanceof URL),
    workerData: data,
    name: EMBEDDED_THREAD_NAME,
    // no preloads: the parent's `--import`s (a tracer, the benchmark's stdin guard) belong to the serving thread
    execArgv: [],
  });
  let running = true;
  // an uncaught error in the thread; it then ends, and 'exit' follows
  let crash: unknown;
  worker.on('error', (e) => (crash = e));
  const exited = new Promise<{ code: number; crash: unknown }>((res) => worker.once('exit', (code) => ((running = false), res({ code, crash }))));
  const connection = await new Promise<EmbeddedConnection>((res, rej) => {
    const onMessage = (msg: FromEmbedded) => {
      if (msg.kind === 'ready') res(msg.connection);
      else if (msg.kind === 'failed') rej(asError(msg.error));
    };
    worker.on('message', onMessage);
    void exited.then(({ code }) => rej(crash instanceof Error ? crash : new Error(`the embedded database's thread ended with code ${code} before it served`)));
  }).catch(async (e: unknown) => {
    await worker.terminate(); // it served nothing: nothing to flush
    throw e;
  });
  return { worker, connection, running: () => running, exited };
}

/** Closes PGlite in the thread and waits for it to end; ends a thread that does not. */
async function stopThread(t: Thread, logger: Logger): Promise<void> {
  if (!t.running()) return;
  const failed = new Promise<Error>((res) => t.worker.on('message', (msg: FromEmbedded) => msg.kind === 'failed' && res(asError(msg.error))));
  t.worker.postMessage({ kind: 'stop' } satisfies ToEmbedded);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((res) => (timer = setTimeout(() => res('late'), STOP_WAIT_MS)));
  const how = await Promise.race([t.exited.then(() => 'ended' as const), failed, late]);
  clearTimeout(timer);
  if (how === 'ended') return;
  if (how === 'late') logger.warn({ waitedMs: STOP_WAIT_MS }, 'embedded database: its thread did not end after closing; ending it');
  else logger.error({ err: how.message }, 'embedded database: closing failed');
  await t.worker.terminate();
}

/** The wait before the next try to start the thread again, after one of `wait`. */
const longer = (wait: number) => Math.min(RESTART_MAX_MS, wait * 2);

/** `script` replaces the thread's code (tests: a thread that crashes); by default embedded-worker.ts. */
export async function startEmbedded(dataDir: string, logger: Logger, script: Script = new URL('./embedded-worker.ts', import.meta.url)): Promise<Embedded> {
  let current = await startThread({ dataDir }, script);
  const connection = current.connection;
  // a restarted thread serves where the first one did: the driver's next connection finds it
  const again: EmbeddedWorkerData = connection.host.startsWith('/') ? { dataDir } : { dataDir, port: connection.port };
  let restarts = 0;
  // aborted by a stop: it also ends a wait between tries at once
  const halt = new AbortController();
  const stopping = () => halt.signal.aborted;

  const restart = async (): Promise<void> => {
    for (let wait = RESTART_FIRST_MS; !stopping(); wait = longer(wait)) {
      await sleep(wait, undefined, { signal: halt.signal }).catch(() => undefined);
      if (stopping()) return;
      try {
        const next = await startThread(again, script);
        if (stopping()) return void (await stopThread(next, logger));
        current = next;
        restarts++;
        watch(next);
        logger.warn({ restarts }, 'embedded database: started again after its thread ended; the database is back');
        return;
      } catch (e) {
        logger.error({ err: (e as Error).message, retryInMs: longer(wait) }, 'embedded database: starting it again failed');
      }
    }
  };
  let restarting: Promise<void> | undefined;
  const watch = (t: Thread) =>
    void t.exited.then(({ code, crash }) => {
      if (stopping()) return;
      // not asked to stop: the database is down until the thread serves again (every query fails to connect)
      const err = crash instanceof Error ? crash : undefined;
      logger.error({ code, err: err?.message, stack: err?.stack, retryInMs: RESTART_FIRST_MS }, 'embedded database: its thread ended; the database is down until it is started again');
      restarting = restart().finally(() => (restarting = undefined));
    });
  watch(current);

  let closing: Promise<void> | undefined;
  return {
    connection,
    get threadId() {
      return current.worker.threadId;
    },
    get running() {
      return !stopping() && current.running();
    },
    get restarts() {
      return restarts;
    },
    stop() {
      closing ??= (async () => {
        halt.abort();
        await restarting; // a thread being started again is stopped as it comes up
        await stopThread(current, logger);
      })();
      return closing;
    },
  };
}
