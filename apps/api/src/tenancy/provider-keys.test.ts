// A tenant's stored keys in memory follow the newest read: the notices of its writes reload it, the
// reloads overlap, and one that read before a key was removed but finished last must not bring it back.
import { describe, expect, it } from 'vitest';
import type { Database } from '../db/database.ts';
import type { HotStore } from '../hot/store.ts';
import type { Envelope } from '../security/envelope.ts';
import { ProviderKeys } from './provider-keys.ts';

const keyRow = { id: 'pk_1', accountId: 'acct', provider: 'openai', sealed: {}, createdAt: new Date(), updatedAt: new Date() };

describe('stored provider keys', () => {
  it('keeps the newer read when a reload begun before a removal finishes last', async () => {
    const reads: ((rows: unknown[]) => void)[] = [];
    let first = true;
    const db = {
      em: () => ({
        find: () => {
          if (first) return ((first = false), Promise.resolve([keyRow])); // start(): the key is there
          return new Promise<unknown[]>((resolve) => reads.push(resolve));
        },
      }),
    } as unknown as Database;
    let notice: (m: string) => Promise<void> = async () => {};
    const hot = { subscribe: async (_c: string, h: (m: string) => Promise<void>) => void (notice = h) } as unknown as HotStore;
    const keys = new ProviderKeys(db, hot, {} as Envelope);
    await keys.start();
    expect(keys.has('acct', 'openai')).toBe(true);

    const older = notice('acct'); // read while the key was still stored
    const newer = notice('acct'); // read after it was removed
    reads[1]!([]);
    await newer;
    expect(keys.has('acct', 'openai')).toBe(false);
    reads[0]!([keyRow]);
    await older;
    expect(keys.has('acct', 'openai')).toBe(false);
  });
});
