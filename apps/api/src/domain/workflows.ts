// A tenant's workflows: the list, each one's stage and its move to production, its reports
// and lockfile, and its production events. WorkflowLife checks ownership itself; the rest
// checks here.
import type { z } from 'zod';
import type { eventsInput, reportInput, stageInput, workflowRef } from '@optimizer/schema';
import { workflowEvents } from '../reporting/events.ts';
import { workflowList } from '../reporting/workflows.ts';
import type { Services } from '../services.ts';
import { ownWorkflow, type Tenant } from './tenant.ts';

type Ref = z.output<typeof workflowRef>;

export function listWorkflows(s: Services, t: Tenant) {
  return workflowList(s, t.accountId);
}

export async function workflowStage(s: Services, t: Tenant, q: Ref) {
  return { id: q.id, stage: await s.workflowLife.stage(t.accountId, q.id) };
}

export function moveWorkflow(s: Services, t: Tenant, q: z.output<typeof stageInput>) {
  return s.workflowLife.moveTo(t.accountId, q.id, q.stage);
}

export function workflowReport(s: Services, t: Tenant, q: z.output<typeof reportInput>) {
  return s.workflowLife.report(t.accountId, q.id, q.version);
}

export function finalizeReport(s: Services, t: Tenant, q: Ref) {
  return s.workflowLife.finalize(t.accountId, q.id);
}

export function workflowLockfile(s: Services, t: Tenant, q: Ref) {
  return s.workflowLife.lockfile(t.accountId, q.id);
}

export async function workflowEventList(s: Services, t: Tenant, q: z.output<typeof eventsInput>) {
  await ownWorkflow(s, t, q.id);
  return workflowEvents(s.db, s.meter, t.accountId, q.id, q.days);
}
