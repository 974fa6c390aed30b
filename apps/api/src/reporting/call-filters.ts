// The filters of the calls list (GET /v1/calls): step, model, run, cache, outcome and a time
// window, as conditions on the tenant's call records. The list's page and the dashboard's CSV
// export read the same conditions, so an export covers exactly the calls the view filters.
import { raw } from '@mikro-orm/postgresql';
import type { CallFilters } from '@optimizer/schema';

/** A date alone (2025-01-31) is the start of that day, UTC. */
export const instant = (s: string): Date => new Date(/^\d{4}-\d{2}-\d{2}$/.test(s) ? `${s}T00:00:00Z` : s);

/** The conditions of a calls query, for `em.find(CallRecord, { accountId, ...callConditions(q) })`. */
export function callConditions(q: Partial<CallFilters>): Record<string, unknown> {
  const where: Record<string, unknown> = {};
  if (q.agent) where.workflowId = q.agent;
  if (q.cache) where.cacheHit = q.cache === 'hit';
  if (q.outcome) where.status = q.outcome === 'ok' ? { $lt: 400 } : { $gte: 400 };
  const at: Record<string, Date> = {};
  if (q.from) at.$gte = instant(q.from);
  if (q.to) at.$lt = instant(q.to);
  if (q.from || q.to) where.createdAt = at;
  if (q.model) where.$or = [{ servedModel: q.model }, { requestedModel: q.model }];
  // a step by its label or its fingerprint; a run by the annotation's run id (both indexed: migration 0017)
  if (q.step) Object.assign(where, { [raw((a) => `(${a}.detail->'optimizer'->>'step' = ? or ${a}.detail->'optimizer'->>'fingerprint' = ?)`, [q.step, q.step])]: [] });
  if (q.run) Object.assign(where, { [raw((a) => `${a}.detail->'annotation'->'run'->>'id' = ?`, [q.run])]: [] });
  return where;
}
