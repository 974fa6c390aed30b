// The catalog in memory follows the newest read: reloads overlap (a write's own and the notices of
// writes), and one that read before a write but finished after a later reload is dropped.
import { describe, expect, it } from 'vitest';
import type { Database } from '../db/database.ts';
import type { HotStore } from '../hot/store.ts';
import { Catalog } from './catalog.ts';
import { seedCatalog } from './seed.ts';

const seeded = seedCatalog[0]!;
const row = (disabled: boolean) => ({ model: seeded.model, provider: seeded.provider, disabled, profile: { ...seeded, disabled } });

/** A database whose reads resolve when the test says, each with the rows given. */
function heldReads() {
  const pending: ((rows: unknown[]) => void)[] = [];
  const db = { em: () => ({ find: () => new Promise<unknown[]>((resolve) => pending.push(resolve)) }) } as unknown as Database;
  return { db, pending };
}

describe('catalog reloads', () => {
  it('keeps the newer read when an older reload finishes last', async () => {
    const { db, pending } = heldReads();
    const catalog = new Catalog(db, {} as HotStore);
    const older = catalog.reload(); // read before the write
    const newer = catalog.reload(); // read after it
    pending[1]!([row(true)]);
    await newer;
    expect(catalog.get(seeded.model)?.disabled).toBe(true);
    pending[0]!([row(false)]);
    await older;
    expect(catalog.get(seeded.model)?.disabled).toBe(true);
  });

  it('applies reloads that finish in the order they began', async () => {
    const { db, pending } = heldReads();
    const catalog = new Catalog(db, {} as HotStore);
    const first = catalog.reload();
    pending[0]!([row(false)]);
    await first;
    expect(catalog.get(seeded.model)?.disabled).toBe(false);
    const second = catalog.reload();
    pending[1]!([row(true)]);
    await second;
    expect(catalog.get(seeded.model)?.disabled).toBe(true);
  });
});
