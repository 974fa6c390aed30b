// Agents (workflows) and their keys (spec 4.3). A key is shown once, when it is made.
import type { z } from 'zod';
import type { agentKeyRef, createAgentInput, workflowRef } from '@optimizer/schema';
import type { Services } from '../services.ts';
import type { Tenant } from './tenant.ts';

type Ref = z.output<typeof workflowRef>;

export function listAgents(s: Services, t: Tenant) {
  return s.accounts.listAgents(t.accountId);
}

export function createAgent(s: Services, t: Tenant, q: z.output<typeof createAgentInput>) {
  return s.accounts.createAgent(t.accountId, q.name);
}

/** The agent's keys by hint (never the key); 404 for another tenant's agent. */
export function listAgentKeys(s: Services, t: Tenant, q: Ref) {
  return s.accounts.listKeys(t.accountId, q.id);
}

export function createAgentKey(s: Services, t: Tenant, q: Ref) {
  return s.accounts.createKey(t.accountId, q.id);
}

export async function revokeAgentKey(s: Services, t: Tenant, q: z.output<typeof agentKeyRef>) {
  await s.accounts.revokeKey(t.accountId, q.id, q.key_id);
  return { id: q.key_id, revoked: true as const };
}
