// Stage: dispatch, with its policy. Retries a retryable failure (connect error, 429,
// 5xx, first-byte timeout) with exponential backoff and full jitter, honouring
// Retry-After, and only before the first byte; then fails over along the model's
// cross-vendor chain, writing a `failover` event. A vendor whose circuit is open for
// the key the call would use is skipped (providers/circuit-breaker.ts: per vendor and
// per key, so one tenant's failing key never shuts the vendor for the others). Every
// attempt is recorded. An attempt counts as answered only once its answer is read far
// enough to know it is the vendor's: a JSON answer whole and checked, a stream up to its
// first event. So an answer not in the vendor's shape (or a stream that opens with a vendor
// error) is a vendor fault like a 5xx: it counts on that vendor and key's circuit and the
// call fails over, all before any byte reaches the client.
import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError } from '../errors.ts';
import type { CallContext, Candidate } from './context.ts';
import { candidateKey, dispatchOnce, transportError, type DispatchDeps, type Dispatched } from './dispatch.ts';
import { breakerKey, type CircuitBreaker } from '../providers/circuit-breaker.ts';
import { logInvalid } from '../providers/vendor-shape.ts';
import { readAnswer } from './read-answer.ts';
import { openStream } from './stream.ts';
import { sameModel } from './failover.ts';

const BASE_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 2_000;
/** A Retry-After longer than this is not waited out: the next vendor is tried instead. */
const MAX_RETRY_AFTER_MS = 5_000;

/** How long to wait before retry number `retry` (0-based), or null to stop retrying this vendor. */
export function backoffMs(retry: number, retryAfter: string | undefined): number | null {
  if (retryAfter !== undefined) {
    const secs = Number(retryAfter);
    const ms = Number.isFinite(secs) ? secs * 1000 : Date.parse(retryAfter) - Date.now();
    if (Number.isFinite(ms)) return ms > MAX_RETRY_AFTER_MS ? null : Math.max(0, ms);
  }
  const cap = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** retry);
  return randomInt(0, cap + 1);
}

function retryable(e: unknown): e is ApiError {
  return e instanceof ApiError && e.entry.retryable && e.code !== 'idempotency_in_flight' && e.code !== 'upstream_invalid';
}

/**
 * Failures that say the vendor is failing, counted against the vendor and key they came from:
 * a 5xx, a timeout, a connection that failed, an answer not in the vendor's shape. A key's own
 * refusals (401/403, its 429s, a request the vendor calls invalid) say nothing of the vendor.
 */
export function vendorFault(e: ApiError): boolean {
  return e.code === 'upstream_error' || e.code === 'upstream_timeout' || e.code === 'upstream_invalid';
}

/** How one vendor's retries ended: its answer, or its last error and whether failing over may help. */
export type Retried<T> = { ok: true; value: T } | { ok: false; error: ApiError; fatal: boolean };

/**
 * One vendor under the retry policy: `once` is tried, and a retryable failure (before any
 * answer) tried again after a backoff, honouring Retry-After, while the circuit of this vendor
 * with this key (`circuit`, providers/circuit-breaker.ts) stays closed. Vendor faults open it
 * (a key's own refusals and rate limits do not); a success closes it. An answer not in the
 * vendor's shape is not retried on the same vendor (it answered; asking again pays again) but
 * may fail over. `fatal`: the error is the request's own or the client left, so no other vendor
 * would do better.
 */
export async function withRetries<T>(
  provider: string,
  deps: { breaker: CircuitBreaker; config: { UPSTREAM_MAX_RETRIES: number } },
  signal: AbortSignal,
  once: () => Promise<T>,
  circuit: string = provider,
): Promise<Retried<T>> {
  for (let retry = 0; ; retry++) {
    try {
      const value = await once();
      deps.breaker.success(circuit);
      return { ok: true, value };
    } catch (e) {
      const error = e instanceof ApiError ? e : transportError(e, provider);
      if (vendorFault(error) && !signal.aborted) deps.breaker.failure(circuit);
      else deps.breaker.settled(circuit);
      if (error.code === 'upstream_invalid') return { ok: false, error, fatal: signal.aborted };
      const again = retryable(error) && !signal.aborted;
      if (!again) return { ok: false, error, fatal: true };
      if (!deps.breaker.allow(circuit) || retry >= deps.config.UPSTREAM_MAX_RETRIES) return { ok: false, error, fatal: false };
      const wait = backoffMs(retry, error.headers['retry-after']);
      if (wait === null) return { ok: false, error, fatal: false };
      await sleep(wait, undefined, { signal }).catch(() => undefined);
      if (signal.aborted) return { ok: false, error, fatal: true };
    }
  }
}

/** The refusal for a vendor whose circuit (for this key) is open: Retry-After is when it lets a trial through. */
export function circuitOpen(provider: string, breaker: CircuitBreaker, circuit: string = provider): ApiError {
  const retryAfter = breaker.retryAfterS(circuit);
  return new ApiError('upstream_error', `${provider} is failing with this call's key; calls skip it until ${new Date(breaker.openUntil(circuit)).toISOString()} (retry after ${retryAfter} s).`, {
    headers: { 'retry-after': String(retryAfter) },
  });
}

/** One attempt on one candidate, read until it is known to be the vendor's answer: a JSON answer whole, a stream to its first event. */
async function dispatchAndRead(ctx: CallContext, deps: DispatchDeps, signal: AbortSignal, candidate: Candidate): Promise<Dispatched> {
  const d = await dispatchOnce(ctx, deps, signal, candidate);
  if (ctx.stream) await openStream(d);
  else d.answer = await readAnswer(d);
  return d;
}

/** `logger` hears of each answer not in its vendor's shape that a failover leaves behind (the last one is logged where the call fails). */
export async function dispatchWithPolicy(ctx: CallContext, deps: DispatchDeps & { breaker: CircuitBreaker; logger?: { warn(obj: object, msg: string): void } }, signal: AbortSignal): Promise<Dispatched> {
  const route = ctx.route!;
  const primary: Candidate = { model: route.model, provider: route.provider, profile: route.profile };
  const chain = [primary, ...route.failover];
  let last: unknown;
  for (const [i, candidate] of chain.entries()) {
    if (i > 0) {
      const from = chain[i - 1]!;
      const why = last instanceof ApiError ? `${last.code}: ${last.message}` : String(last);
      if (last instanceof ApiError && deps.logger) logInvalid(deps.logger, last, ctx.id);
      ctx.events.push({ kind: 'failover', at: new Date(), payload: { call_id: ctx.id, from: from.model, from_provider: from.provider, to: candidate.model, to_provider: candidate.provider, reason: why } });
      const kind = !route.pinned ? '' : sameModel(route.profile, candidate.profile) ? ' (the same model on another vendor)' : ' (another model: the routing settings allow failover to any)';
      route.reasons.push(`failed over from ${from.model} (${from.provider}) to ${candidate.model} (${candidate.provider})${kind}: ${why}`);
    }
    let circuit = candidate.provider;
    try {
      circuit = breakerKey(candidate.provider, candidateKey(ctx, deps, candidate));
    } catch {
      /* no key for this vendor: dispatchOnce refuses it with the catalogue's reason */
    }
    if (!deps.breaker.allow(circuit)) {
      last = circuitOpen(candidate.provider, deps.breaker, circuit);
      continue;
    }
    const r = await withRetries(candidate.provider, deps, signal, () => dispatchAndRead(ctx, deps, signal, candidate), circuit);
    if (r.ok) {
      if (i > 0) Object.assign(route, { model: candidate.model, provider: candidate.provider, profile: candidate.profile });
      return r.value;
    }
    if (r.fatal) throw r.error;
    last = r.error;
  }
  throw last;
}
