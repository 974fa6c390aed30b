// Stage: dispatch, with its policy. Retries a retryable failure (connect error, 429,
// 5xx, first-byte timeout) with exponential backoff and full jitter, honouring
// Retry-After, and only before the first byte; then fails over along the model's
// cross-vendor chain, writing a `failover` event. A vendor whose circuit is open
// is skipped. Every attempt is recorded.
import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError } from '../errors.ts';
import type { CallContext, Candidate } from './context.ts';
import { dispatchOnce, type DispatchDeps, type Dispatched } from './dispatch.ts';
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
      last = new ApiError('upstream_error', `${candidate.provider} is failing; calls skip it until ${new Date(deps.breaker.openUntil(candidate.provider)).toISOString()}.`);
      continue;
    }
    for (let retry = 0; ; retry++) {
      try {
        const d = await dispatchOnce(ctx, deps, signal, candidate);
        deps.breaker.success(candidate.provider);
        if (i > 0) Object.assign(route, { model: candidate.model, provider: candidate.provider, profile: candidate.profile });
        return d;
      } catch (e) {
        last = e;
        if (retryable(e) && !signal.aborted && e.code !== 'upstream_rate_limited') deps.breaker.failure(candidate.provider);
        if (!retryable(e) || signal.aborted) throw e;
        if (!deps.breaker.allow(candidate.provider)) break;
        if (retry >= deps.config.UPSTREAM_MAX_RETRIES) break;
        const wait = backoffMs(retry, e.headers['retry-after']);
        if (wait === null) break;
        await sleep(wait, undefined, { signal }).catch(() => undefined);
        if (signal.aborted) throw e;
      }
    }
  }
  throw last;
}
