// Opens the one database: a real PostgreSQL when DATABASE_URL is set, else an
// embedded PGlite under DATA_DIR served over a private unix socket, so the same
// driver, dialect and migrations run in both. Migrations are applied at open.
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './entities.ts';
import { migrations } from './migrations/index.ts';
import type { Logger } from '../logger.ts';

export interface Database {
  readonly kind: 'postgres' | 'pglite';
  em(): EntityManager;
  ping(): Promise<void>;
  close(): Promise<void>;
}

interface Embedded {
  /** Connection options for the embedded server: a unix socket directory, or loopback TCP. */
  connection: { host: string; port: number; user: string; dbName: string };
  stop(): Promise<void>;
}

async function startEmbedded(dataDir: string): Promise<Embedded> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const db = await PGlite.create(join(dir, 'pgdata'));
  // A unix socket inside the data directory: only this user can reach it. Fall back
  // to loopback TCP where the path is too long for a socket address.
  const socketPath = join(dir, '.s.PGSQL.5432');
  const useSocket = socketPath.length < 100;
  // The data directory is locked to this process, so a socket file here is stale (a killed run).
  if (useSocket) rmSync(socketPath, { force: true });
  const server = new PGLiteSocketServer(useSocket ? { db, path: socketPath } : { db, host: '127.0.0.1', port: 0 });
  await server.start();
  // pg reaches a unix socket through a directory as host: `${host}/.s.PGSQL.${port}`
  const [tcpHost, tcpPort] = server.getServerConn().split(':');
  const connection = useSocket ? { host: dir, port: 5432, user: 'postgres', dbName: 'postgres' } : { host: tcpHost!, port: Number(tcpPort), user: 'postgres', dbName: 'postgres' };
  return {
    connection,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}

/** How long closing waits for pooled connections to be returned. */
const CLOSE_WAIT_MS = 5_000;

/** `migrateTo` stops after that migration (a test of a later migration's upgrade path); by default all are applied. */
export async function openDatabase(opts: { databaseUrl?: string | undefined; dataDir: string; logger: Logger; migrateTo?: string }): Promise<Database> {
  const embedded = opts.databaseUrl ? null : await startEmbedded(opts.dataDir);
  const orm = await MikroORM.init({
    entities,
    ...(embedded ? embedded.connection : { clientUrl: opts.databaseUrl }),
    pool: embedded ? { min: 1, max: 1 } : { min: 1, max: 10 },
    extensions: [Migrator],
    migrations: { migrationsList: migrations, transactional: true, allOrNothing: true, silent: true, snapshot: false },
    debug: false,
    allowGlobalContext: false,
    logger: (msg) => opts.logger.debug({ orm: msg }),
  });
  await (opts.migrateTo ? orm.migrator.up({ to: opts.migrateTo }) : orm.migrator.up());
  return {
    kind: embedded ? 'pglite' : 'postgres',
    em: () => orm.em.fork(),
    async ping() {
      await orm.em.getConnection().execute('select 1');
    },
    async close() {
      // Closing waits for every pooled connection to be returned. One that never is (seen, rarely,
      // at the end of a test run on PostgreSQL) must not hold a shutdown for ever: by now the
      // meter has flushed, so after a few seconds the process goes on and its sockets close with it.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((res) => (timer = setTimeout(() => res('late'), CLOSE_WAIT_MS)));
      const closed = await Promise.race([orm.close(true).then(() => 'closed' as const), late]);
      clearTimeout(timer);
      if (closed === 'late') opts.logger.warn({ waitedMs: CLOSE_WAIT_MS }, 'database: a connection was still checked out at shutdown; not waiting for it');
      await embedded?.stop();
    },
  };
}
