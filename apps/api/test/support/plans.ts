// Reading query plans in tests: on a partitioned table PostgreSQL names each partition's copy
// of an index after the partition, so "uses index X" means X or one of its partitions' copies.
import type { Database } from '../../src/db/database.ts';

/** An index and, when it is on a partitioned table, the indexes its partitions hold for it. */
export async function indexFamily(db: Database, index: string): Promise<string[]> {
  const rows = (await db
    .em()
    .getConnection()
    .execute(`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent where p.relname = ?`, [
      index,
    ])) as { name: string }[];
  return [index, ...rows.map((r) => r.name)];
}

/** Whether a plan reads through the index (or its partitions' copies). */
export async function planUses(db: Database, plan: string, index: string): Promise<boolean> {
  const names = await indexFamily(db, index);
  return names.some((n) => new RegExp(`using ${n} on`).test(plan));
}
