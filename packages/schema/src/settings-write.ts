// Settings writes merge (docs/routing-settings.md, docs/control-plane.md): a PUT of any settings
// topic carries only the fields it changes. A field left out keeps its value, a nested object
// merges field by field (`cache.exact` alone keeps `cache.semantic`), a list is replaced whole,
// and `null` returns a field to its default. The write schema of a topic is derived here from
// the topic's full schema, so the two cannot drift apart: every field optional and nullable,
// no defaults filled (a default filled at parse time would overwrite what is stored), unknown
// keys refused as before. The merged result is then checked by the full schema on the server.
import { z } from 'zod';
import { alertSettings } from './alerts.ts';
import { captureSettings } from './capture.ts';
import { guardSettings } from './guard.ts';
import { rateLimitSettings } from './limits.ts';
import { failoverScope, learningMode } from './routing.ts';
import { routingSettingsClient, routingSettingsWrite } from './routing.ts';

/** A partial write of settings of shape T: any field may be left out or set to null (its default); objects nest, lists do not. */
export type SettingsPatch<T> = T extends readonly unknown[] ? T : T extends object ? { [K in keyof T]?: SettingsPatch<NonNullable<T[K]>> | null | undefined } : T;

/** The schema under its optional / nullable / default wrappers. */
function bare(s: z.ZodType): z.ZodType {
  let cur: z.ZodType = s;
  while (cur instanceof z.ZodDefault || cur instanceof z.ZodOptional || cur instanceof z.ZodNullable) cur = cur.unwrap() as z.ZodType;
  return cur;
}

function patchOf(s: z.ZodType): z.ZodType {
  const b = bare(s);
  if (b instanceof z.ZodObject) {
    const shape = Object.fromEntries(Object.entries(b.shape as Record<string, z.ZodType>).map(([k, v]) => [k, patchOf(v).nullable().optional()]));
    return z.object(shape).strict();
  }
  // a map keyed by the tenant's names (ladders): each entry merges alone, null removes it
  if (b instanceof z.ZodRecord) return z.record(b.keyType as z.ZodString, bare(b.valueType as z.ZodType).nullable());
  return b;
}

/** The merge write of a settings topic, from its full schema (see the top of this file). */
export function settingsPatch<S extends z.ZodObject>(schema: S): z.ZodType<SettingsPatch<z.output<S>>, SettingsPatch<z.input<S>>> {
  return patchOf(schema) as unknown as z.ZodType<SettingsPatch<z.output<S>>, SettingsPatch<z.input<S>>>;
}

/** PUT /v1/settings/routing (the raw write: any tier key under `ladders`). */
export const routingSettingsPatch = settingsPatch(routingSettingsWrite);
export type RoutingSettingsPatch = SettingsPatch<z.output<typeof routingSettingsWrite>>;
/** The clients' routing write: tier keys closed to the known tiers. */
export const routingSettingsClientPatch = settingsPatch(routingSettingsClient);
export type RoutingSettingsClientPatch = SettingsPatch<z.output<typeof routingSettingsClient>>;
export const captureSettingsPatch = settingsPatch(captureSettings);
export const guardSettingsPatch = settingsPatch(guardSettings);
export const alertSettingsPatch = settingsPatch(alertSettings);
export const rateLimitSettingsPatch = settingsPatch(rateLimitSettings);

const unit = z.number().min(0).max(1);

/**
 * The effective routing settings, as GET answers them: every field with the tenant's value or
 * the default. A null is a default that depends on the call: every provider with a usable key
 * (`allowed_providers`), the strongest allowed model (`baseline_model`), the baseline
 * (`judge_model`), no cap of the step's own (`exploration.step_budget_usd`), the embedder's
 * own threshold (`cache.semantic_threshold`), no verification of semantic hits (`cache.semantic_error_bound`).
 */
export const routingSettingsView = z.object({
  mode: z.enum(['auto', 'pinned', 'off']),
  allowed_providers: z.array(z.string()).nullable(),
  tiebreak: z.enum(['cost', 'latency', 'quality']),
  ladders: z.record(z.string(), z.array(z.string())),
  band: unit,
  learning_mode: learningMode,
  advanced_search: z.boolean(),
  failover: failoverScope,
  baseline_model: z.string().nullable(),
  judge_model: z.string().nullable(),
  quality_floor: unit,
  exploration: z.object({ step_share: unit, step_budget_usd: z.number().min(0).nullable(), daily_budget_usd: z.number().min(0) }),
  cache: z.object({ exact: z.boolean(), semantic: z.boolean(), ttl_seconds: z.int().min(0), semantic_threshold: unit.nullable(), semantic_error_bound: z.number().gt(0).max(0.5).nullable() }),
});
export type RoutingSettingsView = z.infer<typeof routingSettingsView>;
