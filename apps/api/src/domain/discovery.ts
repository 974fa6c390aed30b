// Discovery mode (spec 4.6). The proxy agent's id is its workflow's id.
import type { z } from 'zod';
import type { discoveryInput, workflowRef } from '@optimizer/schema';
import type { Services } from '../services.ts';
import { ownWorkflow, type Tenant } from './tenant.ts';

type Ref = z.output<typeof workflowRef>;

export async function setDiscovery(s: Services, t: Tenant, q: z.output<typeof discoveryInput>) {
  await ownWorkflow(s, t, q.id);
  return s.discovery.setEnabled(t.accountId, q.id, q.enabled);
}

export async function discoveryProgress(s: Services, t: Tenant, q: Ref) {
  await ownWorkflow(s, t, q.id);
  return s.discovery.view(t.accountId, q.id);
}

export async function discoveryReport(s: Services, t: Tenant, q: Ref) {
  await ownWorkflow(s, t, q.id);
  return s.discovery.report(t.accountId, q.id);
}
