// Stage: route. A pinned model is honored verbatim; `auto` and `discover` are served
// by the workflow's baseline until the optimizer has evidence for the step.
//
// Every call is priced or refused: a pinned name the catalog does not list is priced as its
// catalog model when the admin aliased it (a dated snapshot), at the admin's unknown-model
// price on the platform's key, or served unpriced only on a key the tenant holds (its own,
// sent or stored); on the platform's key with no price it is refused 400 unknown_model,
// naming the closest catalog models, once the budget stage has checked the cap and allowance.
// A bare x-provider-key is bound here to the pinned model's vendor (plan-routed binds a
// routed call's to its baseline's vendor); x-provider-key-<vendor> names one vendor.
import type { ModelProfile } from '@optimizer/schema';
import type { Catalog } from '../catalog/catalog.ts';
import { ApiError } from '../errors.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import { hasAdapter } from '../providers/adapters.ts';
import type { CallContext, Candidate } from './context.ts';
import { failoverChain, needsOf, type FailoverScope } from './failover.ts';
import type { ProviderKeys } from '../tenancy/provider-keys.ts';
import { isRoutedName } from './routing-options.ts';
import { requestSize } from './limits.ts';
import { keyless, keySource, productionKeyMissing } from './dispatch.ts';
import { meanStrength, profileAtPolicy } from '../catalog/catalog.ts';

export function isRouted(model: string): boolean {
  return isRoutedName(model);
}

/** The default baseline: the strongest enabled model on a provider the tenant can reach (adapter and key: the call's, the tenant's or the platform's). */
export function defaultBaseline(accountId: string, deps: RouteDeps, clientKeys: ReadonlyMap<string, string> = new Map()): ModelProfile | undefined {
  let best: ModelProfile | undefined;
  for (const m of deps.catalog.all()) {
    if (m.disabled || m.search_only || m.moderation_only || !m.output_modalities.includes('text')) continue;
    const info = deps.providers.get(m.provider);
    if (!info || !hasAdapter(info.wire)) continue;
    if (!info.platformKey && !clientKeys.has(m.provider) && !deps.providerKeys.has(accountId, m.provider)) continue;
    if (!best || meanStrength(m) > meanStrength(best) || (meanStrength(m) === meanStrength(best) && m.output_per_mtok > best.output_per_mtok)) best = m;
  }
  return best;
}

/**
 * A pinned name: a catalog model, an alias the admin set (priced as its catalog model, sent
 * as named), or `provider/model` for a model the catalog does not list (e.g.
 * `anthropic/claude-x`), or else a model on OpenAI. Names that merely contain a slash
 * (`meta-llama/Llama-3.3-70B`) stay whole unless the prefix is a provider.
 */
export function resolvePinned(name: string, catalog: Catalog, providers: ProviderRegistry): { model: string; provider: string; profile: ModelProfile | undefined; aliasOf?: string } {
  const profile = catalog.get(name);
  if (profile) return { model: name, provider: profile.provider, profile };
  const alias = catalog.aliasOf(name);
  if (alias) return { model: name, provider: alias.provider, profile: alias, aliasOf: alias.model };
  const slash = name.indexOf('/');
  if (slash > 0 && providers.has(name.slice(0, slash))) {
    const model = name.slice(slash + 1);
    const vendor = name.slice(0, slash);
    const p = catalog.get(model);
    if (p?.provider === vendor) return { model, provider: vendor, profile: p };
    const a = catalog.aliasOf(model);
    if (a?.provider === vendor) return { model, provider: vendor, profile: a, aliasOf: a.model };
    return { model, provider: vendor, profile: undefined };
  }
  return { model: name, provider: 'openai', profile: undefined };
}

/**
 * Binds the bare x-provider-key to the vendor it was sent for: the pinned model's, or on a
 * routed call the baseline's (the model the call would go to unrouted). An
 * x-provider-key-<vendor> for that vendor wins. The key never reaches another vendor.
 */
export function bindProviderKey(ctx: CallContext, vendor: string): void {
  const bare = ctx.providerKeyHeader;
  if (bare === undefined) return;
  if (!ctx.clientKeys.has(vendor)) ctx.clientKeys.set(vendor, bare);
}

/** The refusal of a name the catalog does not list, on the platform's key with no price: with the closest catalog models. */
export function unknownModel(name: string, provider: string, catalog: Catalog): ApiError {
  const suggestions = catalog.closest(name);
  return new ApiError(
    'unknown_model',
    `Model ${name} is not in the catalog, and on the platform's ${provider} key a call must be priced: ${suggestions.length ? `name a catalog model (closest: ${suggestions.join(', ')}), ` : ''}send your own key (x-provider-key-${provider}) to be served unpriced, or ask the admin for an alias or an unknown-model price.`,
    { param: 'model', extra: { suggestions } },
  );
}

/**
 * The price of a pinned model the catalog does not list: none on a key the tenant holds (served
 * unpriced, and said so) or on a keyless vendor (nothing is paid); the admin's unknown-model
 * price on the platform's key; else none, and the call is to be refused (`ctx.unpricedRefusal`).
 */
export function priceUnlisted(ctx: CallContext, deps: RouteDeps, model: string, provider: string, output: 'text' | 'embedding'): { profile: ModelProfile | undefined; reason: string } {
  const source = keySource(ctx, provider, deps.providers.get(provider), deps.providerKeys);
  if (source === 'client' || source === 'tenant') return { profile: undefined, reason: `not in the catalog, forwarded to ${provider} unpriced on the tenant's own key` };
  if (source === 'none') return { profile: undefined, reason: `not in the catalog, forwarded to ${provider} unpriced (a keyless vendor)` };
  const price = deps.catalog.unknownModelPrice();
  if (price) return { profile: profileAtPolicy(model, provider, price, output), reason: `not in the catalog, forwarded to ${provider} at the unknown-model price (${price.input_per_mtok}/${price.output_per_mtok} USD per million tokens)` };
  ctx.unpricedRefusal = unknownModel(ctx.requestedModel, provider, deps.catalog);
  return { profile: undefined, reason: `not in the catalog, and unpriced on the platform's key: refused` };
}

export interface RouteDeps {
  catalog: Catalog;
  providers: ProviderRegistry;
  providerKeys: ProviderKeys;
  /** The tenant's routing settings: `failover` says where a pinned model may go when its vendor fails. */
  routingSettings?: { get(accountId: string): { failover?: FailoverScope } };
}

/** The reason a pinned call's failover chain gets: which kind of failover it may take, and to what. */
function failoverReason(model: string, scope: FailoverScope, chain: Candidate[], wider: Candidate[]): string {
  const names = (c: Candidate[]) => c.map((x) => `${x.model} (${x.provider})`).join(', ');
  if (scope === 'any') return chain.length ? `failover: routing failover is any, so another model may answer if ${model}'s vendor fails: ${names(chain)}` : `failover: none reachable for ${model}`;
  if (chain.length) return `failover: only to the same model on another vendor: ${names(chain)}`;
  return `failover: none; no other vendor serves ${model}${wider.length ? ', and another model answers only with routing failover any' : ''}`;
}

export function route(ctx: CallContext, deps: RouteDeps): void {
  const { catalog, providers } = deps;
  const needs = needsOf(ctx.body);
  if (isRouted(ctx.requestedModel)) {
    const bare = ctx.providerKeyHeader;
    const unrouted = bare === undefined ? undefined : defaultBaseline(ctx.principal.accountId, deps, new Map(deps.catalog.all().map((p) => [p.provider, bare])));
    if (unrouted) bindProviderKey(ctx, unrouted.provider);
    const baseline = defaultBaseline(ctx.principal.accountId, deps, ctx.clientKeys);
    if (!baseline) throw new ApiError('provider_unavailable', 'No enabled model in the catalog can serve model "auto".');
    ctx.route = {
      model: baseline.model,
      provider: baseline.provider,
      requestedProvider: baseline.provider,
      profile: baseline,
      failover: failoverChain(baseline, needs, ctx, deps),
      pinned: false,
      baselineModel: baseline.model,
      baselineProfile: baseline,
      reasons: [`routed to ${baseline.model}: no evidence for this step yet, so the baseline serves it`],
    };
    return;
  }
  const resolved = resolvePinned(ctx.requestedModel, catalog, providers);
  const { model, provider } = resolved;
  const { profile: listed } = resolved;
  if (listed && !listed.output_modalities.includes('text')) {
    throw new ApiError('invalid_request', `${model} is an embedding model: call POST /v1/embeddings with it.`, { param: 'model' });
  }
  const info = providers.get(provider);
  if (!info || !hasAdapter(info.wire)) {
    throw new ApiError('provider_unavailable', `Model ${ctx.requestedModel} is served by ${provider}, which is not configured on this gateway.`, { param: 'model' });
  }
  bindProviderKey(ctx, provider);
  if (ctx.production && !keyless(provider) && keySource(ctx, provider, info, deps.providerKeys) === 'none') throw productionKeyMissing(ctx, [provider]);
  const unlisted = listed ? null : priceUnlisted(ctx, deps, model, provider, 'text');
  const profile = listed ?? unlisted?.profile;
  // pinned means pinned: the same model on another vendor, or another model only when the tenant allows it
  const scope = deps.routingSettings?.get(ctx.principal.accountId).failover ?? 'same_model';
  const chain = failoverChain(profile, needs, ctx, deps, requestSize(ctx.body), scope);
  const wider = scope === 'same_model' && chain.length === 0 ? failoverChain(profile, needs, ctx, deps, requestSize(ctx.body), 'any') : [];
  const named = unlisted ? `pinned to ${model}: ${unlisted.reason}` : resolved.aliasOf ? `pinned to ${model}: honored verbatim, priced as ${resolved.aliasOf} (an alias)` : `pinned to ${model}: honored verbatim`;
  ctx.route = {
    model,
    provider,
    requestedProvider: provider,
    profile,
    failover: chain,
    pinned: true,
    baselineModel: model,
    baselineProfile: profile,
    reasons: [named, ...(profile ? [failoverReason(model, scope, chain, wider)] : [])],
  };
}
