// Opens the one database: a real PostgreSQL when DATABASE_URL is set, else an
// embedded PGlite under DATA_DIR, on a thread of its own, served over a private unix
// socket, so the same driver, dialect and migrations run in both. Migrations are
// applied at open.
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './entities.ts';
import { migrations } from './migrations/index.ts';
import type { Logger } from '../logger.ts';
import { startEmbedded } from './embedded.ts';

export interface Database {
  readonly kind: 'postgres' | 'pglite';
  em(): EntityManager;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** How long closing waits for pooled connections to be returned. */
const CLOSE_WAIT_MS = 5_000;

/**
 * `migrateTo` stops after that migration (a test of a later migration's upgrade path); by default all are applied.
 * `embeddedScript` replaces the embedded database thread's code (a test's thread that crashes).
 */
export async function openDatabase(opts: { databaseUrl?: string | undefined; dataDir: string; logger: Logger; migrateTo?: string; embeddedScript?: Parameters<typeof startEmbedded>[2] }): Promise<Database> {
  const embedded = opts.databaseUrl ? null : await startEmbedded(opts.dataDir, opts.logger, opts.embeddedScript);
  let orm: MikroORM | undefined;
  try {
    orm = await MikroORM.init({
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
  } catch (e) {
    // a failed start leaves nothing running: the embedded database's thread would keep the process alive
    await orm?.close(true).catch(() => undefined);
    await embedded?.stop();
    throw e;
  }
  const ready = orm;
  return {
    kind: embedded ? 'pglite' : 'postgres',
    em: () => ready.em.fork(),
    async ping() {
      await ready.em.getConnection().execute('select 1');
    },
    async close() {
      // Closing waits for every pooled connection to be returned. One that never is (seen, rarely,
      // at the end of a test run on PostgreSQL) must not hold a shutdown for ever: by now the
      // meter has flushed, so after a few seconds the process goes on and its sockets close with it.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((res) => (timer = setTimeout(() => res('late'), CLOSE_WAIT_MS)));
      const closed = await Promise.race([ready.close(true).then(() => 'closed' as const), late]);
      clearTimeout(timer);
      if (closed === 'late') opts.logger.warn({ waitedMs: CLOSE_WAIT_MS }, 'database: a connection was still checked out at shutdown; not waiting for it');
      await embedded?.stop();
    },
  };
}
