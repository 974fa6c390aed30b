// The cross-vendor failover chain of a model: the same model on other vendors (the catalog's
// `weights`) and, where allowed, the catalog's equivalent-or-stronger models on other vendors
// (a pinned model only with routing settings `failover: any`), kept only where they can serve this request (enabled,
// the capabilities it uses, an adapter, and a key for that vendor: one the client sent
// for it, the tenant's stored one, or the platform's; never the client's key for another).
import type { ModelProfile } from '@optimizer/schema';
import type { Catalog } from '../catalog/catalog.ts';
import { hasAdapter } from '../providers/adapters.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import type { ProviderKeys } from '../tenancy/provider-keys.ts';
import type { CallContext, Candidate } from './context.ts';
import { keySource } from './dispatch.ts';
import { sizeMisfit, type RequestSize } from './limits.ts';

export interface Needs {
  image: boolean;
  tools: boolean;
  structured: boolean;
}

export function needsOf(body: Record<string, unknown>): Needs {
  const messages = Array.isArray(body.messages) ? (body.messages as { content?: unknown }[]) : [];
  const image = messages.some((m) => Array.isArray(m.content) && (m.content as { type?: string }[]).some((p) => p.type === 'image_url'));
  const rf = body.response_format as { type?: string } | undefined;
  return { image, tools: Array.isArray(body.tools) && body.tools.length > 0, structured: rf?.type === 'json_schema' };
}

export function fits(p: ModelProfile, needs: Needs): boolean {
  if (p.disabled || p.search_only || p.moderation_only || !p.output_modalities.includes('text')) return false;
  if (needs.image && !p.input_modalities.includes('image')) return false;
  if (needs.tools && p.tools === 'none') return false;
  if (needs.structured && !p.structured_outputs) return false;
  return true;
}

/** Where a pinned model may fail over (routing settings `failover`): the same model elsewhere, or any equivalent. */
export type FailoverScope = 'same_model' | 'any';

/** Whether two profiles are the same model on different vendors (the catalog's `weights`). */
export function sameModel(a: ModelProfile | undefined, b: ModelProfile | undefined): boolean {
  return a?.weights !== undefined && a.weights === b?.weights;
}

/**
 * The candidates a model's call may fail over to, in order: the same model on other vendors
 * (catalog `weights`), then, with scope `any`, the catalog's equivalent models (`failover`).
 * With scope `same_model` (what a pinned call gets unless the tenant allows any) only the first.
 */
export function failoverChain(
  profile: ModelProfile | undefined,
  needs: Needs,
  ctx: CallContext,
  deps: { catalog: Catalog; providers: ProviderRegistry; providerKeys: ProviderKeys },
  size?: RequestSize,
  scope: FailoverScope = 'any',
): Candidate[] {
  if (!profile) return [];
  const same = profile.weights === undefined ? [] : deps.catalog.all().filter((p) => sameModel(p, profile) && p.model !== profile.model);
  // the catalog's preference order first among the same model's vendors
  same.sort((a, b) => rank(profile.failover, a.model) - rank(profile.failover, b.model));
  const names = [...same.map((p) => p.model), ...(scope === 'any' ? profile.failover : [])];
  const out: Candidate[] = [];
  for (const name of new Set(names)) {
    const p = deps.catalog.get(name);
    if (!p || p.provider === profile.provider || !fits(p, needs)) continue;
    if (size && sizeMisfit(p, size)) continue; // a failover too small for the request would only fail again
    const info = deps.providers.get(p.provider);
    if (!info || !hasAdapter(info.wire)) continue;
    if (keySource(ctx, p.provider, info, deps.providerKeys) === 'none') continue;
    out.push({ model: p.model, provider: p.provider, profile: p });
  }
  return out;
}

function rank(list: string[], model: string): number {
  const i = list.indexOf(model);
  return i < 0 ? list.length : i;
}
