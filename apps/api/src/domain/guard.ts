// The guard settings (spec 4.5): PII redaction and the prompt-injection policy of the tenant.
import type { GuardSettings, SettingsPatch } from '@optimizer/schema';
import type { Services } from '../services.ts';
import type { Tenant } from './tenant.ts';

export function guardSettings(s: Services, t: Tenant) {
  return s.guardSettings.get(t.accountId);
}

/** Merges the write into the stored settings (a field left out keeps its value; null: its default). */
export function putGuardSettings(s: Services, t: Tenant, q: SettingsPatch<GuardSettings>) {
  return s.guardSettings.put(t.accountId, q);
}
