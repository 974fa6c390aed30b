// Small helpers of the semantic cache service: vectors as base64, the keys it files entries
// and steps under, and a promise given up on after a while.

export const toBase64 = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');

export function fromBase64(s: string): Float32Array {
  const b = Buffer.from(s, 'base64');
  const out = new Float32Array(b.byteLength / 4);
  new Uint8Array(out.buffer).set(b);
  return out;
}

/** The index key of a tenant's step and scope. */
export const indexKey = (accountId: string, step: string, scope: string) => JSON.stringify([accountId, step, scope]);

/** The key of a tenant's step. */
export const stepKey = (accountId: string, step: string) => `${accountId}\0${step}`;

/** The promise's value, or null when it takes longer than `ms`. */
export function within<T>(p: Promise<T | null>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((res) => {
    timer = setTimeout(() => res(null), ms);
    timer.unref();
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
