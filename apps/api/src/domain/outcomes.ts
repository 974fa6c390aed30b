// Outcome signals (spec 2.4): attributed to the calls of a run's step, from the key's workflow.
import type { OutcomeRequest } from '@optimizer/schema';
import { refuseUnstorableName, unstorable } from '../input/storable.ts';
import type { Services } from '../services.ts';
import type { Tenant } from './tenant.ts';

export async function reportOutcome(s: Services, t: Tenant, q: OutcomeRequest) {
  // the ids are kept in the outcome's row: NUL or a lone surrogate, which PostgreSQL cannot store, names nothing
  for (const param of ['run_id', 'step_id'] as const) {
    if (unstorable(q[param])) refuseUnstorableName(param);
  }
  return s.outcomes.report(t.accountId, t.workflowId, q);
}
