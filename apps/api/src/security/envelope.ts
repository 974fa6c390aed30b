// AES-256-GCM envelope encryption for secrets at rest (provider keys, connection
// secrets). Each secret gets its own data key; the data key is wrapped by the master
// key. Both ciphertexts are bound to their tenant and row through the AAD, so a
// ciphertext copied to another row or tenant fails to decrypt.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { deriveKey } from './secrets.ts';

export interface SealedSecret {
  v: 1;
  kid: string;
  dek: string;
  iv: string;
  ct: string;
}

function seal(key: Buffer, plaintext: Buffer, aad: string): { iv: Buffer; ct: Buffer } {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(Buffer.from(aad));
  const ct = Buffer.concat([c.update(plaintext), c.final(), c.getAuthTag()]);
  return { iv, ct };
}

function open(key: Buffer, iv: Buffer, sealed: Buffer, aad: string): Buffer {
  const d = createDecipheriv('aes-256-gcm', key, iv);
  d.setAAD(Buffer.from(aad));
  d.setAuthTag(sealed.subarray(sealed.length - 16));
  return Buffer.concat([d.update(sealed.subarray(0, sealed.length - 16)), d.final()]);
}

export class Envelope {
  /** Key-encryption keys by id; the newest seals, every one still opens (rotation). */
  readonly #keks: Map<string, Buffer>;
  readonly #current: string;

  constructor(masters: { id: string; key: Buffer }[]) {
    if (masters.length === 0) throw new Error('envelope needs at least one master key');
    this.#keks = new Map(masters.map((m) => [m.id, deriveKey(m.key, 'kek')]));
    this.#current = masters[masters.length - 1]!.id;
  }

  encrypt(plaintext: string, binding: { tenantId: string; rowId: string }): SealedSecret {
    const aad = `tenant=${binding.tenantId};row=${binding.rowId}`;
    const dataKey = randomBytes(32);
    const body = seal(dataKey, Buffer.from(plaintext, 'utf8'), aad);
    const wrapped = seal(this.#keks.get(this.#current)!, dataKey, aad);
    return {
      v: 1,
      kid: this.#current,
      dek: Buffer.concat([wrapped.iv, wrapped.ct]).toString('base64'),
      iv: body.iv.toString('base64'),
      ct: body.ct.toString('base64'),
    };
  }

  decrypt(s: SealedSecret, binding: { tenantId: string; rowId: string }): string {
    const kek = this.#keks.get(s.kid);
    if (!kek) throw new Error(`no master key with id ${s.kid}`);
    const aad = `tenant=${binding.tenantId};row=${binding.rowId}`;
    const dek = Buffer.from(s.dek, 'base64');
    const dataKey = open(kek, dek.subarray(0, 12), dek.subarray(12), aad);
    return open(dataKey, Buffer.from(s.iv, 'base64'), Buffer.from(s.ct, 'base64'), aad).toString('utf8');
  }
}
