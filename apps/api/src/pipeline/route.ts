// Stage: route. A pinned model is honored verbatim; `auto` and `discover` are served
// by the workflow's baseline until the optimizer has evidence for the step.
import type { ModelProfile } from '@optimizer/schema';
import type { Catalog } from '../catalog/catalog.ts';
import { ApiError } from '../errors.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import type { CallContext } from './context.ts';

const ROUTED = new Set(['auto', 'discover']);

function meanStrength(p: ModelProfile): number {
  const v = Object.values(p.strengths);
  return v.length ? v.reduce((a, b) => a + (b ?? 0), 0) / v.length : 0;
}

/** The default baseline: the strongest enabled model on a provider this gateway can reach. */
export function defaultBaseline(catalog: Catalog, providers: ProviderRegistry): ModelProfile | undefined {
  let best: ModelProfile | undefined;
  for (const m of catalog.all()) {
    if (m.disabled || m.search_only || m.moderation_only || !providers.has(m.provider)) continue;
    if (!best || meanStrength(m) > meanStrength(best) || (meanStrength(m) === meanStrength(best) && m.output_per_mtok > best.output_per_mtok)) best = m;
  }
  return best;
}

export function route(ctx: CallContext, catalog: Catalog, providers: ProviderRegistry): void {
  if (ROUTED.has(ctx.requestedModel)) {
    const baseline = defaultBaseline(catalog, providers);
    if (!baseline) throw new ApiError('provider_unavailable', 'No enabled model in the catalog can serve model "auto".');
    ctx.route = {
      model: baseline.model,
      provider: baseline.provider,
      profile: baseline,
      pinned: false,
      baselineModel: baseline.model,
      baselineProfile: baseline,
      reasons: [`routed to ${baseline.model}: no evidence for this step yet, so the baseline serves it`],
    };
    return;
  }
  const profile = catalog.get(ctx.requestedModel);
  const provider = profile?.provider ?? 'openai';
  if (!providers.has(provider)) {
    throw new ApiError('provider_unavailable', `Model ${ctx.requestedModel} is served by ${provider}, which this gateway cannot reach yet.`, { param: 'model' });
  }
  ctx.route = {
    model: ctx.requestedModel,
    provider,
    profile,
    pinned: true,
    baselineModel: ctx.requestedModel,
    baselineProfile: profile,
    reasons: [profile ? `pinned to ${ctx.requestedModel}: honored verbatim` : `pinned to ${ctx.requestedModel}: not in the catalog, forwarded to ${provider} unpriced`],
  };
}
