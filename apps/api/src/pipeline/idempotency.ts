// Idempotency-Key (design §10): a retried completion with the same key replays the
// first answer (status, headers, body) with `Idempotent-Replayed: true` and neither
// dispatches nor meters again. Keys are scoped per tenant; the body is fingerprinted
// (a different body is 422); a repeat while the first is in flight is 409.
// Retryable failures (429, 5xx) release the key so a retry really retries.
// Answered keys outlive a restart: in Redis, or on the embedded default in a journal in the
// data folder (hot/idempotency-journal.ts), kept for RETENTION_MS.
import { canonical } from './canonical.ts';
import { createHash } from 'node:crypto';
import { ApiError } from '../errors.ts';
import { idempotencyClaimKey as claimKey, type HotStore, type IdempotencyRecord } from '../hot/store.ts';

export const RETENTION_MS = 24 * 60 * 60 * 1000;
/** How long an in-flight claim lives if its process dies before finishing. */
const IN_FLIGHT_MS = 10 * 60 * 1000;

export interface Claim {
  scope: string;
  fingerprint: string;
}

export type Begin = { kind: 'claimed'; claim: Claim } | { kind: 'replay'; record: IdempotencyRecord };


export function fingerprint(body: unknown): string {
  return createHash('sha256').update(canonical(body)).digest('base64url');
}

export function readKey(header: string | string[] | undefined): string | null {
  if (header === undefined) return null;
  const key = Array.isArray(header) ? header[0]! : header;
  if (key.length === 0 || key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
    throw new ApiError('invalid_request', 'Idempotency-Key must be 1–255 visible ASCII characters.', { param: 'Idempotency-Key' });
  }
  return key;
}

export class Idempotency {
  readonly #hot: HotStore;

  constructor(hot: HotStore) {
    this.#hot = hot;
  }

  async begin(accountId: string, key: string, body: unknown): Promise<Begin> {
    const scope = scopeOf(accountId, key);
    const fp = fingerprint(body);
    if (await this.#hot.setIfAbsent(claimKey(scope), fp, IN_FLIGHT_MS)) return { kind: 'claimed', claim: { scope, fingerprint: fp } };
    const record = await this.#hot.fetchIdempotency(scope);
    if (record) {
      if (record.fingerprint !== fp) throw new ApiError('idempotency_mismatch');
      return { kind: 'replay', record };
    }
    const claimedFor = await this.#hot.get(claimKey(scope));
    if (claimedFor === null) return this.begin(accountId, key, body); // released between our two reads
    if (claimedFor !== fp) throw new ApiError('idempotency_mismatch');
    throw new ApiError('idempotency_in_flight');
  }

  async complete(claim: Claim, status: number, headers: Record<string, string>, body: string): Promise<void> {
    await this.#hot.saveIdempotency(claim.scope, { fingerprint: claim.fingerprint, state: 'done', status, headers: JSON.stringify(headers), body }, RETENTION_MS);
    await this.#hot.set(claimKey(claim.scope), claim.fingerprint, RETENTION_MS);
  }

  async release(claim: Claim): Promise<void> {
    await this.#hot.del(claimKey(claim.scope));
  }

  /** Where a key stands: answered (its answer replays), claimed by a request still in flight, or unseen. */
  async state(accountId: string, key: string): Promise<'done' | 'in_flight' | 'none'> {
    const scope = scopeOf(accountId, key);
    if (await this.#hot.fetchIdempotency(scope)) return 'done';
    return (await this.#hot.get(claimKey(scope))) === null ? 'none' : 'in_flight';
  }

  /**
   * Drops the in-flight claim on a key whose holder is known to be gone (a managed run's
   * step, taken over after its runner's lease ran out), so the key can be sent again now
   * rather than after the in-flight window. An answered key is left as it is.
   */
  async abandon(accountId: string, key: string): Promise<void> {
    if ((await this.state(accountId, key)) === 'in_flight') await this.#hot.del(claimKey(scopeOf(accountId, key)));
  }
}

const scopeOf = (accountId: string, key: string) => createHash('sha256').update(`${accountId}\0${key}`).digest('base64url');

/** Whether a failed first attempt is kept for replay (a deterministic refusal) or released (worth retrying). */
export function keepsFailure(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 409 && status !== 429;
}
