// Rate limits (design §10) as the tenant reads and writes them: requests and tokens per minute for
// the tenant and for single keys, within the platform's ceiling, which the answer shows.
import type { RateLimitSettings, SettingsPatch } from '@optimizer/schema';
import { ApiError } from '../errors.ts';
import type { Services } from '../services.ts';
import type { Tenant } from './tenant.ts';

function view(s: Services, settings: RateLimitSettings) {
  const c = s.rateLimits.ceiling;
  return { ...settings, ceiling: { requests_per_minute: c.rpm ?? null, tokens_per_minute: c.tpm ?? null } };
}

export function rateLimits(s: Services, t: Tenant) {
  return view(s, s.limitSettings.get(t.accountId));
}

/**
 * Merges the write into the stored limits (a field left out keeps its value; null: no limit of
 * the tenant's own; `keys` is replaced whole when sent); a limit above the ceiling is 422, a
 * key that is not the tenant's (or revoked) 404.
 */
export async function putRateLimits(s: Services, t: Tenant, patch: SettingsPatch<RateLimitSettings>) {
  const next = s.limitSettings.preview(t.accountId, patch);
  const q = next.effective;
  s.rateLimits.checkCeiling(q);
  if (patch.keys && q.keys.length > 0) {
    const ids = q.keys.map((k) => k.key_id);
    const rows = (await s.db
      .em()
      .getConnection()
      .execute(`select id from api_keys where account_id = ? and revoked_at is null and id in (${ids.map(() => '?').join(', ')})`, [t.accountId, ...ids])) as { id: string }[];
    const live = new Set(rows.map((r) => r.id));
    const i = ids.findIndex((id) => !live.has(id));
    if (i >= 0) throw new ApiError('not_found', `No live key ${ids[i]} on this account: list keys at GET /v1/agents/:id/keys.`, { param: `keys.${i}.key_id` });
  }
  return view(s, await s.limitSettings.store(t.accountId, next));
}
