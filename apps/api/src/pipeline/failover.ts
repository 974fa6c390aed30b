// The cross-vendor failover chain of a model: the catalog's equivalent-or-stronger
// models on other vendors, kept only where they can serve this request (enabled,
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

export function failoverChain(
  profile: ModelProfile | undefined,
  needs: Needs,
  ctx: CallContext,
  deps: { catalog: Catalog; providers: ProviderRegistry; providerKeys: ProviderKeys },
  size?: RequestSize,
): Candidate[] {
  if (!profile) return [];
  const out: Candidate[] = [];
  for (const name of profile.failover) {
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
