// Metered calls as the tenant reads them: the curated per-call view, the raw activity
// timeline, and the savings totals by source.
import type { z } from 'zod';
import type { activityQuery, breakdownQuery, callRef, callsQuery, savingsSeriesQuery } from '@optimizer/schema';
import { breakdown as moneyBreakdown } from '../reporting/breakdown.ts';
import { savingsSeries as series } from '../reporting/savings-series.ts';
import type { Services } from '../services.ts';
import type { Tenant } from './tenant.ts';

export function listCalls(s: Services, t: Tenant, q: z.output<typeof callsQuery>) {
  return s.callViews.calls(t.accountId, q);
}

export function getCall(s: Services, t: Tenant, q: z.output<typeof callRef>) {
  return s.callViews.call(t.accountId, q.id);
}

export function listActivity(s: Services, t: Tenant, q: z.output<typeof activityQuery>) {
  return s.callViews.activity(t.accountId, q.limit);
}

export function savings(s: Services, t: Tenant) {
  return s.callViews.savings(t.accountId);
}

/** Savings over time, for the dashboard's chart. */
export async function savingsSeries(s: Services, t: Tenant, q: z.output<typeof savingsSeriesQuery>) {
  await s.meter.flush();
  return series(s.db, t.accountId, q.days, q.points);
}

/** The saving per step and source, and traffic per model over time, for the dashboard. */
export async function breakdown(s: Services, t: Tenant, q: z.output<typeof breakdownQuery>) {
  await s.meter.flush();
  return moneyBreakdown(s.db, t.accountId, q.days, q.points);
}
