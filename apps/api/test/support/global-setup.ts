// Once per test run, for the files on PGlite (vitest.config.ts): builds one migrated PGlite
// data directory (a real first start: initdb and every migration), which each test's gateway
// then copies instead of repeating initdb (≈ 8 s of WASM each).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/db/database.ts';
import { createLogger } from '../../src/logger.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const dir = mkdtempSync(join(tmpdir(), 'optimizer-pglite-template-'));
  if (process.env.TEST_DB !== 'postgres') {
    const db = await openDatabase({ dataDir: dir, logger: createLogger('silent') });
    await db.close();
  }
  project.provide('pgliteTemplate', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
