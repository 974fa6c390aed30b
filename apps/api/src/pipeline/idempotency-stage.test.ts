// The idempotency stage: no key, nothing; a new key claimed for the call; a key answered
// before ends the call in its earlier answer (Replayed), which the runner never meters.
import { describe, expect, it } from 'vitest';
import { newCallContext } from './context.ts';
import type { Begin, Idempotency } from './idempotency.ts';
import { idempotencyStage } from './idempotency-stage.ts';

const record = { fingerprint: 'f', state: 'done' as const, status: 200, headers: '{}', body: '{}' };
const keys = (begun: Begin) => ({ begin: async () => begun }) as unknown as Idempotency;
const ctx = () => newCallContext({ accountId: 'acct_1', workflowId: 'wf_1', keyId: 'k' });

describe('idempotencyStage', () => {
  it('passes a call without a key', async () => {
    const c = ctx();
    expect(await idempotencyStage(c, keys({ kind: 'replay', record }), undefined, {})).toBeNull();
    expect(c.claim).toBeNull();
  });

  it('claims a new key for the call', async () => {
    const c = ctx();
    expect(await idempotencyStage(c, keys({ kind: 'claimed', claim: { scope: 's', fingerprint: 'f' } }), 'key-1', {})).toBeNull();
    expect(c).toMatchObject({ idempotencyKey: 'key-1', claim: { scope: 's' } });
  });

  it('ends a repeated key in its earlier answer', async () => {
    expect(await idempotencyStage(ctx(), keys({ kind: 'replay', record }), 'key-1', {})).toEqual({ kind: 'replayed', record });
  });

  it('refuses a key that is not visible ASCII', async () => {
    await expect(idempotencyStage(ctx(), keys({ kind: 'replay', record }), 'a b', {})).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
