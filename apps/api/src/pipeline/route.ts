// Stage: route. A pinned model is honored verbatim; `auto` and `discover` are served
// by the workflow's baseline until the optimizer has evidence for the step.
import type { ModelProfile } from '@optimizer/schema';
import type { Catalog } from '../catalog/catalog.ts';
import { ApiError } from '../errors.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import { hasAdapter } from '../providers/adapters.ts';
import type { CallContext } from './context.ts';
import { failoverChain, needsOf } from './failover.ts';
import type { ProviderKeys } from '../tenancy/provider-keys.ts';
import { isRoutedName } from './routing-options.ts';
import { requestSize } from './limits.ts';

export function isRouted(model: string): boolean {
  return isRoutedName(model);
}

function meanStrength(p: ModelProfile): number {
  const v = Object.values(p.strengths);
  return v.length ? v.reduce((a, b) => a + (b ?? 0), 0) / v.length : 0;
}

/** The default baseline: the strongest enabled model on a provider the tenant can reach (adapter and key). */
export function defaultBaseline(accountId: string, deps: RouteDeps): ModelProfile | undefined {
  let best: ModelProfile | undefined;
  for (const m of deps.catalog.all()) {
    if (m.disabled || m.search_only || m.moderation_only || !m.output_modalities.includes('text')) continue;
    const info = deps.providers.get(m.provider);
    if (!info || !hasAdapter(info.wire)) continue;
    if (!info.platformKey && !deps.providerKeys.has(accountId, m.provider)) continue;
    if (!best || meanStrength(m) > meanStrength(best) || (meanStrength(m) === meanStrength(best) && m.output_per_mtok > best.output_per_mtok)) best = m;
  }
  return best;
}

/**
 * A pinned name: a catalog model, or `provider/model` for a model the catalog does not
 * list (e.g. `anthropic/claude-x`), or else a model on OpenAI. Names that merely
 * contain a slash (`meta-llama/Llama-3.3-70B`) stay whole unless the prefix is a provider.
 */
export function resolvePinned(name: string, catalog: Catalog, providers: ProviderRegistry): { model: string; provider: string; profile: ModelProfile | undefined } {
  const profile = catalog.get(name);
  if (profile) return { model: name, provider: profile.provider, profile };
  const slash = name.indexOf('/');
  if (slash > 0 && providers.has(name.slice(0, slash))) {
    const model = name.slice(slash + 1);
    const p = catalog.get(model);
    return { model, provider: name.slice(0, slash), profile: p?.provider === name.slice(0, slash) ? p : undefined };
  }
  return { model: name, provider: 'openai', profile: undefined };
}

export interface RouteDeps {
  catalog: Catalog;
  providers: ProviderRegistry;
  providerKeys: ProviderKeys;
}

export function route(ctx: CallContext, deps: RouteDeps): void {
  const { catalog, providers } = deps;
  const needs = needsOf(ctx.body);
  if (isRouted(ctx.requestedModel)) {
    const baseline = defaultBaseline(ctx.principal.accountId, deps);
    if (!baseline) throw new ApiError('provider_unavailable', 'No enabled model in the catalog can serve model "auto".');
    ctx.route = {
      model: baseline.model,
      provider: baseline.provider,
      requestedProvider: baseline.provider,
      profile: baseline,
      failover: failoverChain(baseline, needs, ctx.principal.accountId, deps),
      pinned: false,
      baselineModel: baseline.model,
      baselineProfile: baseline,
      reasons: [`routed to ${baseline.model}: no evidence for this step yet, so the baseline serves it`],
    };
    return;
  }
  const { model, provider, profile } = resolvePinned(ctx.requestedModel, catalog, providers);
  if (profile && !profile.output_modalities.includes('text')) {
    throw new ApiError('invalid_request', `${model} is an embedding model: call POST /v1/embeddings with it.`, { param: 'model' });
  }
  const info = providers.get(provider);
  if (!info || !hasAdapter(info.wire)) {
    throw new ApiError('provider_unavailable', `Model ${ctx.requestedModel} is served by ${provider}, which is not configured on this gateway.`, { param: 'model' });
  }
  ctx.route = {
    model,
    provider,
    requestedProvider: provider,
    profile,
    failover: failoverChain(profile, needs, ctx.principal.accountId, deps, requestSize(ctx.body)),
    pinned: true,
    baselineModel: model,
    baselineProfile: profile,
    reasons: [profile ? `pinned to ${model}: honored verbatim` : `pinned to ${model}: not in the catalog, forwarded to ${provider} unpriced`],
  };
}
