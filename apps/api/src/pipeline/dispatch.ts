// Stage: dispatch. Sends the call to the routed provider through its adapter, with
// the right key, and returns the vendor's response once its headers arrive (the
// body may still be streaming). A body never chooses where a key is sent: the URL
// comes from the provider registry, the key from the client's key for that vendor
// (x-provider-key-<vendor>, or the bare header bound to the pinned model's vendor),
// the tenant's store or the platform. A client's key is never sent to another vendor.
import type { Config } from '../config.ts';
import { ApiError } from '../errors.ts';
import { adapterFor } from '../providers/adapters.ts';
import { assertModelId } from '../providers/model-id.ts';
import { redactError, sentSecrets } from '../providers/redact.ts';
import type { BodySink, Outbound, OutboundResponse } from '../providers/outbound.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import type { CallTarget, ChatAdapter, ChatBody, ParsedCompletion, ProviderInfo, StreamDecoder, StreamEvent } from '../providers/types.ts';
import type { ProviderKeys } from '../tenancy/provider-keys.ts';
import type { Attempt, CallContext, Candidate } from './context.ts';
import { noUsage } from '../wire/usage.ts';

/** A vendor's JSON answer, read whole and checked against its shape. */
export interface ReadAnswer {
  parsed: ParsedCompletion;
  /** From dispatch to the answer's last byte. */
  upstreamMs: number;
}

/** A stream read up to its first event, before any byte of it goes to the client. */
export interface Opening {
  /** The decoder that read the first events: the relay goes on with it. */
  decoder: StreamDecoder;
  /** What the first reads decoded to (at least one event), not yet relayed. */
  events: StreamEvent[];
  /** Hands the rest of the body to `sink`: what arrived since, then the live body. The body stays paused until the relay resumes it. */
  attach(sink: BodySink): void;
}

export interface Dispatched {
  response: OutboundResponse;
  startedAt: number;
  adapter: ChatAdapter;
  target: CallTarget;
  /** The served attempt; the respond stage fills in its usage, latency and outcome. */
  attempt: Attempt;
  /** A JSON answer as the dispatch policy read and checked it (pipeline/respond.ts `readAnswer`). */
  answer?: ReadAnswer;
  /** A stream as the dispatch policy opened it: read up to its first event (pipeline/stream.ts `openStream`). */
  opening?: Opening;
}

export interface DispatchDeps {
  config: Config;
  outbound: Outbound;
  providers: ProviderRegistry;
  providerKeys: ProviderKeys;
}

/** Whose key a call to `provider` goes out on: the client's for that vendor, the tenant's stored one, the platform's, or none (a keyless vendor). */
export type KeySource = 'client' | 'tenant' | 'platform' | 'none';

export function keySource(ctx: CallContext, provider: string, info: ProviderInfo | undefined, keys: ProviderKeys): KeySource {
  if (ctx.clientKeys.has(provider)) return 'client';
  if (keys.has(ctx.principal.accountId, provider)) return 'tenant';
  // a workflow in production never runs on the platform's key: without its own, the vendor is out of reach
  return info?.platformKey && !ctx.production ? 'platform' : 'none';
}

/** Vendors that take no key (a local server). */
export function keyless(provider: string): boolean {
  return provider === 'ollama' || provider === 'vllm';
}

/** The refusal of a production call that would need the platform's key for `vendors`. */
export function productionKeyMissing(ctx: CallContext, vendors: string[]): ApiError {
  const named = vendors.join(', ');
  return new ApiError(
    'production_key_required',
    `Workflow ${ctx.principal.workflowId} is in production, which runs on the tenant's own provider keys, never the platform's; there is none for ${named}: store one (PUT /v1/settings/provider-keys/${vendors[0]}) or send x-provider-key-${vendors[0]}.`,
    { param: 'model', extra: { providers: vendors } },
  );
}

/** `headerKey`: the client's key filed under this vendor (never another vendor's). */
export function keyFor(headerKey: string | undefined, ctx: CallContext, provider: ProviderInfo, keys: ProviderKeys): string {
  const key = headerKey ?? keys.reveal(ctx.principal.accountId, provider.name) ?? (ctx.production ? undefined : provider.platformKey);
  if (key) return key;
  if (keyless(provider.name)) return '';
  if (ctx.production) throw productionKeyMissing(ctx, [provider.name]);
  throw new ApiError('no_provider_key', `No ${provider.name} key: send x-provider-key-${provider.name}, store one at /v1/settings/provider-keys/${provider.name}, or configure the platform key.`);
}

/** Maps a transport failure (no HTTP answer) to our catalogue. */
export function transportError(err: unknown, provider: string): ApiError {
  const code = (err as { code?: string }).code ?? '';
  if (code === 'ERR_BLOCKED_ADDRESS') return new ApiError('provider_unavailable', `${provider} is not at a public address, and this gateway calls only public addresses for it.`, { cause: err });
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || (err as Error).name === 'TimeoutError') {
    return new ApiError('upstream_timeout', `${provider} did not answer in time.`, { cause: err });
  }
  // the code, never the error's text: the text of a transport error is not ours to pass on
  return new ApiError('upstream_error', `${provider} could not be reached${/^[A-Z][A-Z0-9_]{1,40}$/.test(code) ? ` (${code})` : ''}.`, { cause: err });
}

/** The client's key for this candidate's vendor: only a key sent for that vendor; a failover or routed vendor never sees another's. */
function headerKeyFor(ctx: CallContext, candidate: Candidate): string | undefined {
  return ctx.clientKeys.get(candidate.provider);
}

/** The key a call to this candidate is sent with (the circuit breaker knows each key's vendor faults apart). */
export function candidateKey(ctx: CallContext, deps: DispatchDeps, candidate: Candidate): string {
  const provider = deps.providers.get(candidate.provider);
  return provider ? keyFor(headerKeyFor(ctx, candidate), ctx, provider, deps.providerKeys) : '';
}

/** One attempt on one candidate: no retries, no failover. */
export async function dispatchOnce(ctx: CallContext, deps: DispatchDeps, signal: AbortSignal, candidate: Candidate, role: Attempt['role'] = 'serve', bodyOverride?: ChatBody): Promise<Dispatched> {
  const provider = deps.providers.get(candidate.provider)!;
  const adapter = adapterFor(provider.wire);
  const headerKey = headerKeyFor(ctx, candidate);
  const target: CallTarget = { provider, model: assertModelId(candidate.model), apiKey: keyFor(headerKey, ctx, provider, deps.providerKeys) };
  const source = bodyOverride ?? ctx.body;
  const body = (candidate.model === source.model ? source : { ...source, model: candidate.model }) as ChatBody;
  const refused = adapter.unsupported(body, target);
  if (refused) throw new ApiError('invalid_request', `${provider.name} cannot do this: ${refused}.`);
  const built = adapter.buildRequest(body, target, body.stream === true);
  const req = adapter.sign ? await adapter.sign(built, target) : built;
  const startedAt = performance.now();
  const paidBy = typeof headerKey === 'string' || deps.providerKeys.has(ctx.principal.accountId, provider.name) ? 'tenant' : 'platform';
  const attempt: Attempt = { provider: provider.name, model: candidate.model, profile: candidate.profile, startedAt: new Date(), latencyMs: 0, status: null, outcome: 'error', usage: noUsage, role, paidBy };
  ctx.attempts.push(attempt);
  try {
    const response = await deps.outbound.request({ url: req.url, method: 'POST', headers: req.headers, body: req.body, signal, policy: provider.addressPolicy });
    attempt.status = response.statusCode;
    if (response.statusCode >= 400) {
      const text = await response.body.text();
      attempt.latencyMs = performance.now() - startedAt;
      throw redactError(adapter.mapError(response.statusCode, response.headers, text, target), sentSecrets(target, req));
    }
    attempt.outcome = 'ok';
    return { response, startedAt, adapter, target, attempt };
  } catch (err) {
    if (err instanceof ApiError) throw err;
    attempt.latencyMs = performance.now() - startedAt;
    throw redactError(transportError(err, provider.name), sentSecrets(target, req));
  }
}
