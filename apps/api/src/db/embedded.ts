// Runs the embedded database (PGlite and its socket server) on a thread of its own, so the
// queries it executes never take the event loop that serves calls. The gateway connects to
// it over the same unix socket (or loopback TCP) as before, with the same driver.
//
// Failures: one at start-up (a corrupt pgdata, a socket that cannot be bound) rejects the
// start with the thread's own error; the thread ending later is the database going down:
// the driver's connections fail with socket errors, which the dependency-down path answers
// 503 `unavailable`, and /readyz says `database: down`. Stopping closes PGlite in its thread
// (its files flushed) and waits for the thread to end; one that hangs is terminated.
import { Worker } from 'node:worker_threads';
import type { Logger } from '../logger.ts';
import type { EmbeddedConnection, EmbeddedWorkerData, FromEmbedded, ToEmbedded } from './embedded-worker.ts';

/** The thread's name, as the OS shows it (/proc/<pid>/task/<tid>/comm; at most 15 characters). */
export const EMBEDDED_THREAD_NAME = 'embedded-db';

/** How long stopping waits for PGlite to close and its thread to end before ending it. */
const STOP_WAIT_MS = 15_000;

export interface Embedded {
  connection: EmbeddedConnection;
  /** The database thread's id (worker_threads), never the serving thread's 0. */
  readonly threadId: number;
  /** False once the thread has ended, by a stop or a crash. */
  readonly running: boolean;
  stop(): Promise<void>;
}

type Failure = Extract<FromEmbedded, { kind: 'failed' }>['error'];

function asError(f: Failure): Error {
  const err = new Error(f.message);
  err.name = f.name;
  if (f.stack) err.stack = f.stack;
  if (f.code) (err as NodeJS.ErrnoException).code = f.code;
  return err;
}

/** `script` replaces the thread's code (tests: a thread that crashes); by default embedded-worker.ts. */
export async function startEmbedded(dataDir: string, logger: Logger, script: URL | { eval: string } = new URL('./embedded-worker.ts', import.meta.url)): Promise<Embedded> {
  const worker = new Worker(script instanceof URL ? script : script.eval, {
    eval: !(script instanceof URL),
    workerData: { dataDir } satisfies EmbeddedWorkerData,
    name: EMBEDDED_THREAD_NAME,
    // no preloads: the parent's `--import`s (a tracer, the benchmark's stdin guard) belong to the serving thread
    execArgv: [],
  });
  const threadId = worker.threadId;
  let running = true;
  let stopping = false;
  const exited = new Promise<number>((res) => worker.once('exit', (code) => ((running = false), res(code))));
  // an uncaught error in the thread; it then ends, and 'exit' follows
  let crash: unknown;
  worker.on('error', (e) => (crash = e));

  const connection = await new Promise<EmbeddedConnection>((res, rej) => {
    const onMessage = (msg: FromEmbedded) => {
      if (msg.kind === 'ready') res(msg.connection);
      else if (msg.kind === 'failed') rej(asError(msg.error));
    };
    worker.on('message', onMessage);
    void exited.then((code) => rej(crash instanceof Error ? crash : new Error(`the embedded database's thread ended with code ${code} before it served`)));
  }).catch(async (e: unknown) => {
    await worker.terminate(); // it served nothing: nothing to flush
    throw e;
  });

  void exited.then((code) => {
    if (stopping) return;
    // not asked to stop: the database is down from here on (every query fails to connect)
    const err = crash instanceof Error ? crash : undefined;
    logger.error({ code, err: err?.message, stack: err?.stack }, 'embedded database: its thread ended; the database is down until the gateway restarts');
  });

  let stopped: Promise<void> | undefined;
  return {
    connection,
    threadId,
    get running() {
      return running;
    },
    stop() {
      stopped ??= (async () => {
        stopping = true;
        if (!running) return;
        const failed = new Promise<Error>((res) => worker.on('message', (msg: FromEmbedded) => msg.kind === 'failed' && res(asError(msg.error))));
        worker.postMessage({ kind: 'stop' } satisfies ToEmbedded);
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<'late'>((res) => (timer = setTimeout(() => res('late'), STOP_WAIT_MS)));
        const how = await Promise.race([exited.then(() => 'ended' as const), failed, late]);
        clearTimeout(timer);
        if (how === 'ended') return;
        if (how === 'late') logger.warn({ waitedMs: STOP_WAIT_MS }, 'embedded database: its thread did not end after closing; ending it');
        else logger.error({ err: how.message }, 'embedded database: closing failed');
        await worker.terminate();
      })();
      return stopped;
    },
  };
}
