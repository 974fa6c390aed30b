// Connections and managed agents (spec 4.5) as capabilities: a connection's secret is never
// returned; every run, action and event is looked up under the tenant asking, so another
// tenant's id reads as 404.
import type { z } from 'zod';
import type { connectionRef, createManagedAgentRequest, managedActionRef, managedAgentRef, managedRunRef, playgroundRequest, putConnectionInput, putScheduleInput, runEventsInput, startRunInput } from '@optimizer/schema';
import { ApiError } from '../errors.ts';
import { eventView } from '../managed/managed-agents.ts';
import type { Services } from '../services.ts';
import type { Tenant } from './tenant.ts';

export function listConnections(s: Services, t: Tenant) {
  return s.connections.list(t.accountId);
}

/** Stores or replaces a connection: its view (never the secret), and whether it was made now. */
export function putConnection(s: Services, t: Tenant, q: z.output<typeof putConnectionInput>) {
  return s.connections.put(t.accountId, q.name, { base_url: q.base_url, secret: q.secret });
}

export function getConnection(s: Services, t: Tenant, q: z.output<typeof connectionRef>) {
  return s.connections.get(t.accountId, q.name);
}

export async function removeConnection(s: Services, t: Tenant, q: z.output<typeof connectionRef>) {
  await s.connections.remove(t.accountId, q.name);
  return { name: q.name, deleted: true as const };
}

export function listManagedAgents(s: Services, t: Tenant) {
  return s.managedAgents.list(t.accountId);
}

export function createManagedAgent(s: Services, t: Tenant, q: z.output<typeof createManagedAgentRequest>) {
  return s.managedAgents.create(t, q.name, q.config);
}

/** A custom config's run: the config was checked by the door's parse, so one that fails never spends a run. */
export function runPlayground(s: Services, t: Tenant, q: z.output<typeof playgroundRequest>) {
  return s.managedAgents.playground(t, q.config, q.input);
}

export function startManagedRun(s: Services, t: Tenant, q: z.output<typeof startRunInput>) {
  return s.managedAgents.start(t, q.id, q.input);
}

/** A stored agent's runs, newest first. */
export function listManagedRuns(s: Services, t: Tenant, q: z.output<typeof managedAgentRef>) {
  return s.managedAgents.runs(t.accountId, q.id);
}

export function managedRun(s: Services, t: Tenant, q: z.output<typeof managedRunRef>) {
  return s.managedAgents.view(t.accountId, q.id);
}

export async function managedRunEvents(s: Services, t: Tenant, q: z.output<typeof runEventsInput>) {
  const run = await s.managedAgents.own(t.accountId, q.id);
  return (await s.managedAgents.eventsAfter(run.id, q.after)).map(eventView);
}

/** The agent's schedule; 404 when it has none (or the agent is another tenant's). */
export async function getManagedSchedule(s: Services, t: Tenant, q: z.output<typeof managedAgentRef>) {
  const schedule = await s.managedAgents.scheduleOf(t.accountId, q.id);
  if (!schedule) throw new ApiError('not_found', `Managed agent ${q.id} has no schedule.`);
  return schedule;
}

export function scheduleManagedAgent(s: Services, t: Tenant, q: z.output<typeof putScheduleInput>) {
  return s.managedAgents.schedule(t, q.id, q.cron, q.input, q.catch_up_s);
}

export function unscheduleManagedAgent(s: Services, t: Tenant, q: z.output<typeof managedAgentRef>) {
  return s.managedAgents.schedules.remove(t.accountId, q.id);
}

export function cancelManagedRun(s: Services, t: Tenant, q: z.output<typeof managedRunRef>) {
  return s.managedAgents.cancel(t.accountId, q.id);
}

export function executeManagedAction(s: Services, t: Tenant, q: z.output<typeof managedActionRef>) {
  return s.managedAgents.execute(t.accountId, q.id, q.action);
}
