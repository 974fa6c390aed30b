// Stage: dispatch, with its policy. Retries a retryable failure (connect error, 429,
// 5xx, first-byte timeout) with exponential backoff and full jitter, honouring
// Retry-After, and only before the first byte; then fails over along the model's
// cross-vendor chain, writing a `failover` event. A vendor whose circuit is open
// is skipped. Every attempt is recorded.
import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError } from '../errors.ts';
import type { CallContext, Candidate } from './context.ts';
import { dispatchOnce, transportError, type DispatchDeps, type Dispatched } from './dispatch.ts';
import type { CircuitBreaker } from '../providers/circuit-breaker.ts';

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
  return e instanceof ApiError && e.entry.retryable && e.code !== 'idempotency_in_flight';
}

/** How one vendor's retries ended: its answer, or its last error and whether failing over may help. */
export type Retried<T> = { ok: true; value: T } | { ok: false; error: ApiError; fatal: boolean };

/**
 * One vendor under the retry policy: `once` is tried, and a retryable failure (before any
 * answer) tried again after a backoff, honouring Retry-After, while the vendor's circuit stays
 * closed. Its failures open the circuit (a rate limit does not); its success closes it.
 * `fatal`: the error is the request's own or the client left, so no other vendor would do better.
 */
export async function withRetries<T>(provider: string, deps: { breaker: CircuitBreaker; config: { UPSTREAM_MAX_RETRIES: number } }, signal: AbortSignal, once: () => Promise<T>): Promise<Retried<T>> {
  for (let retry = 0; ; retry++) {
    try {
      const value = await once();
      deps.breaker.success(provider);
      return { ok: true, value };
    } catch (e) {
      const error = e instanceof ApiError ? e : transportError(e, provider);
      const again = retryable(error) && !signal.aborted;
      if (again && error.code !== 'upstream_rate_limited') deps.breaker.failure(provider);
      if (!again) return { ok: false, error, fatal: true };
      if (!deps.breaker.allow(provider) || retry >= deps.config.UPSTREAM_MAX_RETRIES) return { ok: false, error, fatal: false };
      const wait = backoffMs(retry, error.headers['retry-after']);
      if (wait === null) return { ok: false, error, fatal: false };
      await sleep(wait, undefined, { signal }).catch(() => undefined);
      if (signal.aborted) return { ok: false, error, fatal: true };
    }
  }
}

/** The refusal for a vendor whose circuit is open. */
export function circuitOpen(provider: string, breaker: CircuitBreaker): ApiError {
  return new ApiError('upstream_error', `${provider} is failing; calls skip it until ${new Date(breaker.openUntil(provider)).toISOString()}.`);
}

export async function dispatchWithPolicy(ctx: CallContext, deps: DispatchDeps & { breaker: CircuitBreaker }, signal: AbortSignal): Promise<Dispatched> {
  const route = ctx.route!;
  const primary: Candidate = { model: route.model, provider: route.provider, profile: route.profile };
  const chain = [primary, ...route.failover];
  let last: unknown;
  for (const [i, candidate] of chain.entries()) {
    if (i > 0) {
      const from = chain[i - 1]!;
      const why = last instanceof ApiError ? `${last.code}: ${last.message}` : String(last);
      ctx.events.push({ kind: 'failover', at: new Date(), payload: { call_id: ctx.id, from: from.model, from_provider: from.provider, to: candidate.model, to_provider: candidate.provider, reason: why } });
      route.reasons.push(`failed over from ${from.model} (${from.provider}) to ${candidate.model} (${candidate.provider}): ${why}`);
    }
    if (!deps.breaker.allow(candidate.provider)) {
      last = circuitOpen(candidate.provider, deps.breaker);
      continue;
    }
    const r = await withRetries(candidate.provider, deps, signal, () => dispatchOnce(ctx, deps, signal, candidate));
    if (r.ok) {
      if (i > 0) Object.assign(route, { model: candidate.model, provider: candidate.provider, profile: candidate.profile });
      return r.value;
    }
    if (r.fatal) throw r.error;
    last = r.error;
  }
  throw last;
}
