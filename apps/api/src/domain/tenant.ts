// What every tenant capability is called with: the services and the tenant asking. The
// doors (REST, tRPC, GraphQL) authenticate, parse the input with the capability's shared
// schema, and call the capability; the ownership checks live here, once.
import { ApiError } from '../errors.ts';
import type { Services } from '../services.ts';
import type { Principal } from '../tenancy/key-cache.ts';
import type { StepView } from '../optimizer/registry.ts';
import type { Workflow } from '../db/entities.ts';

export type Tenant = Principal;

/** The tenant's workflow (also called agent); 404 for an id that is not theirs, the same as for one that does not exist. */
export function ownWorkflow(s: Services, t: Tenant, id: string): Promise<Workflow> {
  return s.accounts.getWorkflow(t.accountId, id);
}

/** A step of the tenant's workflow; 404 naming the fingerprint when the workflow has no such step. */
export async function ownStep(s: Services, t: Tenant, id: string, fingerprint: string): Promise<StepView> {
  await ownWorkflow(s, t, id);
  const step = await s.steps.get(t.accountId, id, fingerprint);
  if (!step) throw new ApiError('not_found', `No step ${fingerprint} on agent ${id}.`, { param: 'fingerprint' });
  return step;
}
