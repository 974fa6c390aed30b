// Key material: tenant keys are random, shown once and stored as a keyed hash;
// comparisons are constant-time.
import { createHmac, createSecretKey, randomBytes, randomFillSync, timingSafeEqual, hkdfSync, type KeyObject } from 'node:crypto';

export const TENANT_KEY_PREFIX = 'sk-opt-';

export function newTenantKey(): string {
  return TENANT_KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function newAdminKey(): string {
  return 'sk-admin-' + randomBytes(32).toString('base64url');
}

// Ids take their randomness from a pool refilled 4 KiB at a time: one syscall per
// ~340 ids instead of one each (ids are identifiers, not secrets).
const idPool = Buffer.alloc(4096);
let idOffset = idPool.length;

export function newId(prefix: string): string {
  if (idOffset + 12 > idPool.length) {
    randomFillSync(idPool);
    idOffset = 0;
  }
  const id = idPool.toString('base64url', idOffset, idOffset + 12);
  idOffset += 12;
  return `${prefix}_${id}`;
}

/** A subkey of the master key for one purpose, so one leaked subkey exposes nothing else. */
export function deriveKey(master: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `optimizer:${purpose}`, 32));
}

export class KeyHasher {
  readonly #pepper: KeyObject;
  constructor(master: Buffer) {
    this.#pepper = createSecretKey(deriveKey(master, 'key-hash'));
  }
  hash(key: string): string {
    return createHmac('sha256', this.#pepper).update(key).digest('base64url');
  }
  /** Constant-time check of a presented key against a stored hash. */
  verify(key: string, storedHash: string): boolean {
    return constantTimeEqual(this.hash(key), storedHash);
  }
}

export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}

/** The first characters of a key, safe to show so a user can tell keys apart. */
export function keyHint(key: string): string {
  return `${key.slice(0, TENANT_KEY_PREFIX.length + 4)}…`;
}
