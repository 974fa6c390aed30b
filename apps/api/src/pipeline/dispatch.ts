// Stage: dispatch. Sends the call to the routed provider with the right key and
// returns the vendor's response once its headers arrive (the body may still be
// streaming). A body never chooses where a key is sent: the URL comes from the
// provider registry, the key from the header, the tenant's store or the platform.
import type { Config } from '../config.ts';
import { ApiError } from '../errors.ts';
import type { Outbound, OutboundResponse } from '../providers/outbound.ts';
import { buildChatRequest, mapVendorError } from '../providers/openai/chat.ts';
import type { ProviderInfo, ProviderRegistry } from '../providers/registry.ts';
import type { ProviderKeys } from '../tenancy/provider-keys.ts';
import type { Attempt, CallContext } from './context.ts';
import { noUsage } from './pricing.ts';

export interface Dispatched {
  response: OutboundResponse;
  startedAt: number;
  provider: ProviderInfo;
  /** The served attempt; the respond stage fills in its usage, latency and outcome. */
  attempt: Attempt;
}

export interface DispatchDeps {
  config: Config;
  outbound: Outbound;
  providers: ProviderRegistry;
  providerKeys: ProviderKeys;
}

function keyFor(ctx: CallContext, provider: ProviderInfo, keys: ProviderKeys): string {
  const key = ctx.providerKeyHeader ?? keys.reveal(ctx.principal.accountId, provider.name) ?? provider.platformKey;
  if (!key) throw new ApiError('no_provider_key', `No ${provider.name} key: send x-provider-key, store one at /v1/settings/provider-keys/${provider.name}, or configure the platform key.`);
  return key;
}

/** Maps a transport failure (no HTTP answer) to our catalogue. */
export function transportError(err: unknown, provider: string): ApiError {
  const code = (err as { code?: string }).code ?? '';
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || (err as Error).name === 'TimeoutError') {
    return new ApiError('upstream_timeout', `${provider} did not answer in time.`, { cause: err });
  }
  return new ApiError('upstream_error', `${provider} could not be reached (${code || (err as Error).message}).`, { cause: err });
}

export async function dispatch(ctx: CallContext, deps: DispatchDeps, signal: AbortSignal): Promise<Dispatched> {
  const route = ctx.route!;
  const provider = deps.providers.get(route.provider)!;
  const body = route.pinned ? ctx.body : { ...ctx.body, model: route.model };
  const req = buildChatRequest(provider, body, keyFor(ctx, provider, deps.providerKeys));
  const startedAt = performance.now();
  const attempt: Attempt = { provider: provider.name, model: route.model, profile: route.profile, startedAt: new Date(), latencyMs: 0, status: null, outcome: 'error', usage: noUsage };
  try {
    const c = deps.config;
    const response = await deps.outbound.request({
      url: req.url,
      method: 'POST',
      headers: req.headers,
      body: req.body,
      signal,
      timeouts: { connectMs: c.UPSTREAM_CONNECT_TIMEOUT_MS, firstByteMs: c.UPSTREAM_FIRST_BYTE_TIMEOUT_MS, idleMs: c.UPSTREAM_IDLE_TIMEOUT_MS },
    });
    attempt.status = response.statusCode;
    if (response.statusCode >= 400) {
      const text = await response.body.text();
      attempt.latencyMs = performance.now() - startedAt;
      ctx.attempts.push(attempt);
      throw mapVendorError(provider.name, response.statusCode, response.headers, text);
    }
    attempt.outcome = 'ok';
    ctx.attempts.push(attempt);
    return { response, startedAt, provider, attempt };
  } catch (err) {
    if (err instanceof ApiError) throw err;
    attempt.latencyMs = performance.now() - startedAt;
    ctx.attempts.push(attempt);
    throw transportError(err, provider.name);
  }
}
