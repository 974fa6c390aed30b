// The step registry of a workflow (spec 4.2), the calls behind a step, and the agent graph
// (spec 4.3).
import type { z } from 'zod';
import type { stepCallsInput, stepPatchInput, workflowRef } from '@optimizer/schema';
import { buildGraph, graphCalls } from '../reporting/graph.ts';
import { stepCalls } from '../reporting/step-calls.ts';
import type { Services } from '../services.ts';
import { ownStep, ownWorkflow, type Tenant } from './tenant.ts';

type Ref = z.output<typeof workflowRef>;

export async function listSteps(s: Services, t: Tenant, q: Ref) {
  await ownWorkflow(s, t, q.id);
  return s.steps.list(t.accountId, q.id);
}

/** Excludes a step from (or returns it to) the expected steps, and takes its semantic cache away or gives it back. */
export async function patchStep(s: Services, t: Tenant, q: z.output<typeof stepPatchInput>) {
  const step = await ownStep(s, t, q.id, q.fingerprint);
  if (q.semantic_cache !== undefined) await s.semanticCache.setStep(t.accountId, q.fingerprint, q.semantic_cache);
  if (q.excluded !== undefined) return s.steps.setExcluded(t.accountId, q.id, q.fingerprint, q.excluded);
  return (await s.steps.get(t.accountId, q.id, q.fingerprint)) ?? step;
}

export async function listStepCalls(s: Services, t: Tenant, q: z.output<typeof stepCallsInput>) {
  await ownStep(s, t, q.id, q.fingerprint);
  const calls = await stepCalls(s.db, s.meter, { accountId: t.accountId, workflowId: q.id, fingerprint: q.fingerprint, model: q.model });
  // the stored response behind each call, where the capture settings kept one
  const kept = await s.recordings.forCalls(t.accountId, calls.map((c) => c.id));
  return calls.map((c) => ({ ...c, recording: kept.get(c.id) ?? null }));
}

export async function agentGraph(s: Services, t: Tenant, q: Ref) {
  await ownWorkflow(s, t, q.id);
  const [steps, calls] = await Promise.all([s.steps.list(t.accountId, q.id), graphCalls(s.db, s.meter, t.accountId, q.id)]);
  return buildGraph(q.id, steps, calls);
}
