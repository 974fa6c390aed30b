// The idempotency stage: `readKey` validates the Idempotency-Key header (refused 400
// invalid_request, param Idempotency-Key), and `begin` claims a key, replays an answered one,
// and refuses a different body (422) or a repeat while the first is in flight (409).
import { describe, expect, it } from 'vitest';
import { MemoryHotStore } from '../hot/memory.ts';
import { Idempotency, keepsFailure, readKey } from './idempotency.ts';

describe('readKey', () => {
  it('reads no key from no header, and the first of repeated headers', () => {
    expect(readKey(undefined)).toBeNull();
    expect(readKey('order-42')).toBe('order-42');
    expect(readKey(['first', 'second'])).toBe('first');
    expect(readKey('x'.repeat(255))).toBe('x'.repeat(255));
  });

  it.each([
    ['empty', ''],
    ['longer than 255 characters', 'x'.repeat(256)],
    ['with a space', 'order 42'],
    ['with a non-ASCII letter', 'ordré'],
    ['with a control character', 'order\t42'],
  ])('refuses a key %s with 400 invalid_request', (_what, key) => {
    expect(() => readKey(key)).toThrow(expect.objectContaining({ code: 'invalid_request', status: 400, param: 'Idempotency-Key' }));
  });
});

describe('Idempotency', () => {
  const body = { model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] };

  it('claims a new key, refuses its repeat in flight, then replays the kept answer', async () => {
    const idem = new Idempotency(new MemoryHotStore());
    const first = await idem.begin('acct_1', 'k1', body);
    expect(first.kind).toBe('claimed');
    await expect(idem.begin('acct_1', 'k1', body)).rejects.toMatchObject({ code: 'idempotency_in_flight', status: 409 });
    if (first.kind !== 'claimed') throw new Error('not claimed');
    await idem.complete(first.claim, 200, { 'content-type': 'application/json' }, '{"ok":true}');
    const again = await idem.begin('acct_1', 'k1', { messages: body.messages, model: 'gpt-4.1' }); // the same body, keys in another order
    expect(again).toMatchObject({ kind: 'replay', record: { status: 200, body: '{"ok":true}' } });
  });

  it('refuses the key with another body (422), and scopes keys per tenant', async () => {
    const idem = new Idempotency(new MemoryHotStore());
    await idem.begin('acct_1', 'k1', body);
    await expect(idem.begin('acct_1', 'k1', { ...body, temperature: 1 })).rejects.toMatchObject({ code: 'idempotency_mismatch', status: 422 });
    expect((await idem.begin('acct_2', 'k1', body)).kind).toBe('claimed');
  });

  it('frees a released key for a real retry', async () => {
    const idem = new Idempotency(new MemoryHotStore());
    const first = await idem.begin('acct_1', 'k1', body);
    if (first.kind !== 'claimed') throw new Error('not claimed');
    await idem.release(first.claim);
    expect((await idem.begin('acct_1', 'k1', body)).kind).toBe('claimed');
  });

  it('keeps deterministic refusals for replay and releases what is worth retrying', () => {
    expect([400, 402, 404, 422].map(keepsFailure)).toEqual([true, true, true, true]);
    expect([408, 409, 429, 500, 502, 200].map(keepsFailure)).toEqual([false, false, false, false, false, false]);
  });
});
