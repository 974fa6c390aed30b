// Outcome signals (spec 2.4): attributed to the calls of a run's step, from the key's workflow.
import type { OutcomeRequest } from '@optimizer/schema';
import { ApiError } from '../errors.ts';
import { unstorable } from '../meter/storable.ts';
import type { Services } from '../services.ts';
import type { Tenant } from './tenant.ts';

export async function reportOutcome(s: Services, t: Tenant, q: OutcomeRequest) {
  // the ids are kept in the outcome's row: NUL or a lone surrogate, which PostgreSQL cannot store, names nothing
  for (const param of ['run_id', 'step_id'] as const) {
    if (unstorable(q[param])) throw new ApiError('invalid_request', `${param}: NUL and unpaired UTF-16 surrogates (\\u0000, \\ud800…) cannot be stored; this field names something and cannot hold them.`, { param });
  }
  return s.outcomes.report(t.accountId, t.workflowId, q);
}
