import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Envelope } from '../src/security/envelope.ts';
import { KeyHasher, constantTimeEqual, newTenantKey } from '../src/security/secrets.ts';
import { createLogger } from '../src/logger.ts';

const master = randomBytes(32);

describe('envelope encryption of secrets at rest', () => {
  it('round-trips a secret bound to its tenant and row', () => {
    const env = new Envelope([{ id: 'k1', key: master }]);
    const sealed = env.encrypt('sk-live-abc', { tenantId: 't1', rowId: 'r1' });
    expect(JSON.stringify(sealed)).not.toContain('sk-live-abc');
    expect(env.decrypt(sealed, { tenantId: 't1', rowId: 'r1' })).toBe('sk-live-abc');
  });

  it('refuses a ciphertext moved to another tenant or row', () => {
    const env = new Envelope([{ id: 'k1', key: master }]);
    const sealed = env.encrypt('sk-live-abc', { tenantId: 't1', rowId: 'r1' });
    expect(() => env.decrypt(sealed, { tenantId: 't2', rowId: 'r1' })).toThrow();
    expect(() => env.decrypt(sealed, { tenantId: 't1', rowId: 'r2' })).toThrow();
  });

  it('opens secrets sealed under an older master key after rotation, and seals with the newest', () => {
    const old = new Envelope([{ id: 'k1', key: master }]);
    const sealed = old.encrypt('sk-old', { tenantId: 't', rowId: 'r' });
    const rotated = new Envelope([
      { id: 'k1', key: master },
      { id: 'k2', key: randomBytes(32) },
    ]);
    expect(rotated.decrypt(sealed, { tenantId: 't', rowId: 'r' })).toBe('sk-old');
    expect(rotated.encrypt('sk-new', { tenantId: 't', rowId: 'r' }).kid).toBe('k2');
  });
});

describe('tenant keys', () => {
  it('are stored as a keyed hash that verifies in constant time and differs per master key', () => {
    const key = newTenantKey();
    const h = new KeyHasher(master);
    expect(h.hash(key)).not.toContain(key);
    expect(h.verify(key, h.hash(key))).toBe(true);
    expect(h.verify(key + 'x', h.hash(key))).toBe(false);
    expect(new KeyHasher(randomBytes(32)).hash(key)).not.toBe(h.hash(key));
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
  });
});

describe('logs', () => {
  it('redact credentials wherever they appear', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(c: Buffer, _e, cb) {
        lines.push(c.toString());
        cb();
      },
    });
    const log = createLogger('info', sink);
    log.info({ authorization: 'Bearer sk-opt-AAA', req: { headers: { authorization: 'Bearer sk-opt-BBB', 'x-provider-key': 'sk-CCC' } }, body: { api_key: 'sk-DDD', nested: { key: 'sk-EEE' } } }, 'hello');
    const out = lines.join('');
    for (const s of ['sk-opt-AAA', 'sk-opt-BBB', 'sk-CCC', 'sk-DDD', 'sk-EEE']) expect(out).not.toContain(s);
    expect(out).toContain('[redacted]');
  });
});
