// Raw SQL on an entity manager's connection, inside its transaction when it has one: what the
// billing steps that lock a row and then read and write under that lock run their statements by.
import type { EntityManager } from '@mikro-orm/postgresql';

/** Runs one statement; its rows. */
export type Sql = <T>(sql: string, params?: unknown[]) => Promise<T[]>;

/** Statements on `em`'s connection, in its transaction (none: each on its own). */
export function sqlIn(em: EntityManager): Sql {
  const conn = em.getConnection();
  const ctx = em.getTransactionContext();
  return <T>(sql: string, params: unknown[] = []) => conn.execute(sql, params, 'all', ctx) as Promise<T[]>;
}
