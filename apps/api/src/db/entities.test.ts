// Every domain table has an entity, and every entity says what its migrated table holds: the same
// columns, types, nullability and primary key. Run against the migrations on the database of the
// leg (PostgreSQL, or PGlite under TEST_DB=pglite), so an entity cannot drift from its table.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityMetadata } from '@mikro-orm/core';
import { openDatabase, type Database } from './database.ts';
import { testDatabase, type TestDatabase } from '../../test/support/gateway.ts';

interface Column {
  table: string;
  column: string;
  type: string;
  nullable: boolean;
}

/** information_schema's name for each column type an entity property declares. */
const TYPES: Record<string, string> = {
  text: 'text',
  int: 'integer',
  bigint: 'bigint',
  double: 'double precision',
  boolean: 'boolean',
  timestamptz: 'timestamp with time zone',
  jsonb: 'jsonb',
  bytea: 'bytea',
};

const silent = { debug() {}, info() {}, warn() {}, error() {} } as never;

describe('entities', () => {
  let db: TestDatabase;
  let database: Database;
  let dataDir: string;
  let columns: Column[];
  let primaryKeys: Map<string, string[]>;
  let metas: EntityMetadata[];

  beforeAll(async () => {
    db = await testDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'optimizer-entities-'));
    database = await openDatabase({ databaseUrl: db.url, dataDir, logger: silent });
    const conn = database.em().getConnection();
    // the tables of the schema: partitions are their parent's, the migrations' own table is not the domain's
    const tables = new Set(
      (await conn.execute<{ relname: string }[]>(`select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition and c.relname <> 'mikro_orm_migrations'`)).map((r) => r.relname),
    );
    columns = (
      await conn.execute<{ table_name: string; column_name: string; data_type: string; is_nullable: string }[]>(
        `select table_name, column_name, data_type, is_nullable from information_schema.columns where table_schema = 'public' order by table_name, ordinal_position`,
      )
    )
      .filter((r) => tables.has(r.table_name))
      .map((r) => ({ table: r.table_name, column: r.column_name, type: r.data_type, nullable: r.is_nullable === 'YES' }));
    primaryKeys = new Map();
    const keys = await conn.execute<{ table_name: string; column_name: string }[]>(
      `select tc.table_name, kcu.column_name from information_schema.table_constraints tc
        join information_schema.key_column_usage kcu on kcu.constraint_name = tc.constraint_name and kcu.table_name = tc.table_name
        where tc.constraint_type = 'PRIMARY KEY' and tc.table_schema = 'public' order by kcu.ordinal_position`,
    );
    for (const k of keys) if (tables.has(k.table_name)) primaryKeys.set(k.table_name, [...(primaryKeys.get(k.table_name) ?? []), k.column_name]);
    metas = [...database.em().getMetadata()];
  }, 120_000);
  afterAll(async () => {
    await database?.close();
    rmSync(dataDir, { recursive: true, force: true });
    await db?.drop();
  });

  it('gives every domain table exactly one entity', () => {
    const tables = [...new Set(columns.map((c) => c.table))].sort();
    expect(tables.length).toBeGreaterThan(30);
    const mapped = metas.map((m) => m.tableName).sort();
    expect(mapped).toEqual(tables);
  });

  it('holds each entity to its table: the same columns, types, nullability and primary key', () => {
    const problems: string[] = [];
    for (const meta of metas) {
      const table = columns.filter((c) => c.table === meta.tableName);
      const props = meta.props.filter((p) => p.fieldNames?.length);
      const fields = new Set(props.map((p) => p.fieldNames[0]!));
      for (const c of table) if (!fields.has(c.column)) problems.push(`${meta.tableName}.${c.column}: no property`);
      for (const prop of props) {
        const where = `${meta.tableName}.${prop.fieldNames[0]!}`;
        const col = table.find((c) => c.column === prop.fieldNames[0]);
        if (!col) {
          problems.push(`${where}: no such column`);
          continue;
        }
        const type = TYPES[prop.columnTypes[0]!] ?? prop.columnTypes[0];
        if (type !== col.type) problems.push(`${where}: declared ${type}, the table has ${col.type}`);
        if (Boolean(prop.nullable) !== col.nullable) problems.push(`${where}: declared ${prop.nullable ? 'nullable' : 'not null'}, the table says the other`);
      }
      const primary = props.filter((p) => p.primary).map((p) => p.fieldNames[0]!).sort().join(',');
      const migrated = [...(primaryKeys.get(meta.tableName) ?? [])].sort().join(',');
      if (primary !== migrated) problems.push(`${meta.tableName}: primary key declared (${primary}), the table has (${migrated})`);
    }
    expect(problems).toEqual([]);
  });
});
