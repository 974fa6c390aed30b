// The embedded database's own thread: PGlite (PostgreSQL in WASM) and the socket server the
// gateway's driver connects to. Every query it runs, the meter's batch writes above all, runs
// here and not on the thread that serves calls (docs/decisions.md, "The embedded database off
// the serving thread"). Started by embedded.ts; speaks to it in the messages below.
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/** Connection options for the embedded server: a unix socket directory, or loopback TCP. */
export interface EmbeddedConnection {
  host: string;
  port: number;
  user: string;
  dbName: string;
}

export interface EmbeddedWorkerData {
  dataDir: string;
  /** The loopback port to serve on where no unix socket can be used: a restarted thread serves where the first did. */
  port?: number;
}

/** What the thread tells its owner: it serves (and where), it could not start, or it stopped. */
export type FromEmbedded =
  | { kind: 'ready'; connection: EmbeddedConnection }
  | { kind: 'failed'; error: { name: string; message: string; stack?: string | undefined; code?: string | undefined } }
  | { kind: 'stopped' };

/** What its owner tells it. */
export type ToEmbedded = { kind: 'stop' };

function described(e: unknown): Extract<FromEmbedded, { kind: 'failed' }>['error'] {
  const err = e instanceof Error ? e : new Error(String(e));
  const code = (err as NodeJS.ErrnoException).code;
  return { name: err.name, message: err.message, stack: err.stack, code: typeof code === 'string' ? code : undefined };
}

async function serve(port: NonNullable<typeof parentPort>, data: EmbeddedWorkerData): Promise<void> {
  const dir = resolve(data.dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const db = await PGlite.create(join(dir, 'pgdata'));
  // A unix socket inside the data directory: only this user can reach it. Fall back
  // to loopback TCP where the path is too long for a socket address.
  const socketPath = join(dir, '.s.PGSQL.5432');
  const useSocket = socketPath.length < 100;
  let server: PGLiteSocketServer;
  try {
    // The data directory is locked to this process, so a socket file here is stale (a killed run).
    if (useSocket) rmSync(socketPath, { force: true });
    server = new PGLiteSocketServer(useSocket ? { db, path: socketPath } : { db, host: '127.0.0.1', port: data.port ?? 0 });
    await server.start();
  } catch (e) {
    await db.close().catch(() => undefined);
    throw e;
  }
  // pg reaches a unix socket through a directory as host: `${host}/.s.PGSQL.${port}`
  const [tcpHost, tcpPort] = server.getServerConn().split(':');
  const connection = useSocket ? { host: dir, port: 5432, user: 'postgres', dbName: 'postgres' } : { host: tcpHost!, port: Number(tcpPort), user: 'postgres', dbName: 'postgres' };
  port.on('message', (msg: ToEmbedded) => {
    if (msg.kind !== 'stop') return;
    // closing PGlite flushes its files; then nothing keeps this thread alive and it ends
    void (async () => {
      await server.stop();
      await db.close();
      port.postMessage({ kind: 'stopped' } satisfies FromEmbedded);
      port.close();
    })().catch((e: unknown) => {
      port.postMessage({ kind: 'failed', error: described(e) } satisfies FromEmbedded);
      port.close();
    });
  });
  port.postMessage({ kind: 'ready', connection } satisfies FromEmbedded);
}

if (parentPort) {
  const port = parentPort;
  serve(port, workerData as EmbeddedWorkerData).catch((e: unknown) => {
    port.postMessage({ kind: 'failed', error: described(e) } satisfies FromEmbedded);
    port.close();
  });
}
