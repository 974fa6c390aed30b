// The tenant's settings: routing (spec 4.5) and stored provider keys (never returned).
// A routing write merges into what is stored (settings/merge.ts); reads show the defaults filled in.
import type { z } from 'zod';
import type { providerRef, putProviderKeyInput, RoutingSettingsPatch } from '@optimizer/schema';
import { ApiError } from '../errors.ts';
import type { Services } from '../services.ts';
import type { Tenant } from './tenant.ts';

export function routingSettings(s: Services, t: Tenant) {
  return s.routingSettings.effective(t.accountId);
}

export function putRoutingSettings(s: Services, t: Tenant, q: RoutingSettingsPatch) {
  return s.routingSettings.put(t.accountId, q);
}

/** Providers with a stored key: whether one is set, never the key. */
export function listProviderKeys(s: Services, t: Tenant) {
  return s.providerKeys.list(t.accountId);
}

export async function putProviderKey(s: Services, t: Tenant, q: z.output<typeof putProviderKeyInput>) {
  await s.providerKeys.put(t.accountId, q.provider, q.key);
  return { provider: q.provider, key_set: true as const };
}

export async function removeProviderKey(s: Services, t: Tenant, q: z.output<typeof providerRef>) {
  if (!(await s.providerKeys.remove(t.accountId, q.provider))) throw new ApiError('not_found', `No stored key for ${q.provider}.`, { param: 'provider' });
  return { provider: q.provider, key_set: false as const };
}
