// Replicas tell each other of changes through the hot store's notices. A handler that fails
// (a reload hitting a database blip, or a database already closed at shutdown) is reported,
// never left as an unhandled rejection, which would end the process.
import { describe, expect, it } from 'vitest';
import { MemoryHotStore } from '../src/hot/memory.ts';
import { deliver } from '../src/hot/store.ts';

const tick = () => new Promise((r) => setTimeout(r, 10));

describe('notice handlers', () => {
  it('report a rejected or thrown failure to the store, and other handlers still run', async () => {
    const errors: string[] = [];
    const hot = new MemoryHotStore((e) => errors.push(e.message));
    const seen: string[] = [];
    await hot.subscribe('catalog:changed', async () => {
      throw new Error('database closed');
    });
    await hot.subscribe('catalog:changed', () => {
      throw new Error('sync failure');
    });
    await hot.subscribe('catalog:changed', (m) => void seen.push(m));
    await hot.publish('catalog:changed', 'now');
    await tick();
    expect(errors.sort()).toEqual(['database closed', 'sync failure']);
    expect(seen).toEqual(['now']);
    await hot.close();
  });

  it('turn a non-Error rejection into an Error', async () => {
    const errors: Error[] = [];
    deliver(() => Promise.reject('plain string'), 'm', (e) => errors.push(e));
    await tick();
    expect(errors[0]).toBeInstanceOf(Error);
    expect(errors[0]!.message).toBe('plain string');
  });
});
