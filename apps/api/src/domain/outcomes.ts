// Outcome signals (spec 2.4): attributed to the calls of a run's step, from the key's workflow.
import type { OutcomeRequest } from '@optimizer/schema';
import type { Services } from '../services.ts';
import type { Tenant } from './tenant.ts';

export function reportOutcome(s: Services, t: Tenant, q: OutcomeRequest) {
  return s.outcomes.report(t.accountId, t.workflowId, q);
}
