// Connections (spec 4.5: a site managed agents act on; the secret is never returned) and the
// agents the platform runs (spec 6.3, 7.3): agents, their runs, a run, its events and the
// execution of a proposed action. A run's live events are REST's server-sent stream, which is
// no capability (routes/managed-agents.ts); the other doors read them page by page.
import { z } from 'zod';
import {
  connectionRef,
  createManagedAgentRequest,
  managedActionRef,
  managedAgentRef,
  managedRunRef,
  playgroundRequest,
  putConnectionInput,
  putScheduleInput,
  runEventsInput,
  startRunInput,
} from '@optimizer/schema';
import {
  cancelManagedRun,
  createManagedAgent,
  executeManagedAction,
  getConnection,
  getManagedSchedule,
  listConnections,
  listManagedAgents,
  listManagedRuns,
  managedRun,
  managedRunEvents,
  putConnection,
  removeConnection,
  runPlayground,
  scheduleManagedAgent,
  startManagedRun,
  unscheduleManagedAgent,
} from '../domain/managed.ts';
import { capability } from './capability.ts';
import { Connection, ExecutedAction, ExecutedManagedAction, ManagedAgent, ManagedRun, ManagedRunEvent, ManagedRunSummary, ManagedSchedule, RemovedConnection, RemovedSchedule } from './views/managed.ts';

const tag = 'Managed agents';
const started = 'The run, started.';

export const connections = {
  list: capability({
    auth: 'control',
    output: z.array(Connection),
    run: listConnections,
    rest: { method: 'get', path: '/v1/connections', list: true, tag, summary: 'The connections', answer: 'Every connection, never a secret.' },
    graphql: { name: 'connections' },
  }),
  get: capability({
    auth: 'control',
    input: connectionRef,
    output: Connection,
    run: getConnection,
    rest: { method: 'get', path: '/v1/connections/:name', tag, summary: 'One connection', answer: 'The connection.', errors: ['not_found'] },
    graphql: { name: 'connection', description: 'One connection by its name; never its secret.' },
  }),
  put: capability({
    auth: 'control',
    input: putConnectionInput,
    output: Connection,
    run: putConnection,
    present: (r) => r.view,
    rest: {
      method: 'put',
      path: '/v1/connections/:name',
      status: (r) => (r.created ? 201 : 200),
      statuses: [201, 200],
      tag,
      summary: 'Store or replace a connection',
      description: 'http(s) only; localhost, .local, loopback, private and other special-purpose addresses are refused, the host name resolved now and again at each call. A secret left out keeps the stored one.',
      answer: 'Created (200 when replaced).',
      errors: ['address_refused'],
    },
    graphql: { name: 'putConnection', description: 'Creates or replaces a connection; the secret, left out, keeps the stored one.' },
  }),
  remove: capability({
    auth: 'control',
    input: connectionRef,
    output: RemovedConnection,
    run: removeConnection,
    rest: { method: 'delete', path: '/v1/connections/:name', status: 204, tag, summary: 'Remove a connection', answer: 'Removed.', errors: ['not_found'] },
    graphql: { name: 'removeConnection' },
  }),
};

export const managedAgents = {
  list: capability({
    auth: 'control',
    output: z.array(ManagedAgent),
    run: listManagedAgents,
    rest: { method: 'get', path: '/v1/managed-agents', list: true, tag, summary: 'The managed agents', answer: 'Every managed agent.' },
    graphql: { name: 'managedAgents' },
  }),
  create: capability({
    auth: 'control',
    input: createManagedAgentRequest,
    output: ManagedAgent,
    run: createManagedAgent,
    rest: { method: 'post', path: '/v1/managed-agents', status: 201, tag, summary: 'Create a managed agent', description: 'The kind (chain or action) and its job config are validated.', answer: 'The agent.' },
    graphql: { name: 'createManagedAgent' },
  }),
  playground: capability({
    auth: 'control',
    input: playgroundRequest,
    output: ManagedRun,
    run: runPlayground,
    rest: {
      method: 'post',
      path: '/v1/managed-agents/playground',
      status: 202,
      tag,
      summary: 'Run a custom job config',
      description: 'The config is validated before a run is counted against the month’s run cap.',
      answer: started,
      errors: ['run_cap_reached', 'not_found'],
    },
    graphql: { name: 'runPlayground', description: 'Runs a custom job config, validated before a run is counted.' },
  }),
  runs: capability({
    auth: 'control',
    input: managedAgentRef,
    output: z.array(ManagedRunSummary),
    run: listManagedRuns,
    rest: { method: 'get', path: '/v1/managed-agents/:id/runs', list: true, tag, summary: "A managed agent's runs", description: 'The latest 50, newest first.', answer: 'The runs.', errors: ['not_found'] },
    graphql: { name: 'managedAgentRuns', alsoOn: { type: 'ManagedAgent', field: 'runs', description: 'The latest 50 runs, newest first.', input: (agent: { id: string }) => ({ id: agent.id }) } },
  }),
  getSchedule: capability({
    auth: 'control',
    input: managedAgentRef,
    output: ManagedSchedule,
    run: getManagedSchedule,
    rest: { method: 'get', path: '/v1/managed-agents/:id/schedule', tag, summary: "A managed agent's schedule", answer: 'The schedule, with its next tick and the last tick fired.', errors: ['not_found'] },
    graphql: { name: 'managedAgentSchedule', description: 'The agent’s cron schedule; not_found when it has none.' },
  }),
  schedule: capability({
    auth: 'control',
    input: putScheduleInput,
    output: ManagedSchedule,
    run: scheduleManagedAgent,
    rest: {
      method: 'put',
      path: '/v1/managed-agents/:id/schedule',
      tag,
      summary: "Set a managed agent's schedule",
      description:
        'A five-field cron expression (UTC); each tick starts one run with the input, once across replicas, counted against the run cap. A tick missed while no gateway ran fires once (the most recent one) if it is at most `catch_up_s` seconds old (default 3600; 0 never). Replaces the schedule the agent had.',
      answer: 'The schedule, with its next tick.',
      errors: ['not_found'],
    },
    graphql: { name: 'scheduleManagedAgent', description: 'Sets the agent’s cron schedule (UTC); each tick starts one run with the input.' },
  }),
  unschedule: capability({
    auth: 'control',
    input: managedAgentRef,
    output: RemovedSchedule,
    run: unscheduleManagedAgent,
    rest: { method: 'delete', path: '/v1/managed-agents/:id/schedule', status: 204, tag, summary: "Remove a managed agent's schedule", answer: 'Removed.', errors: ['not_found'] },
    graphql: { name: 'unscheduleManagedAgent' },
  }),
  startRun: capability({
    auth: 'control',
    input: startRunInput,
    output: ManagedRun,
    run: startManagedRun,
    rest: {
      method: 'post',
      path: '/v1/managed-agents/:id/runs',
      status: 202,
      tag,
      summary: 'Start a run of a managed agent',
      description: 'Counted against the month’s run cap; past it, 402 run_cap_reached with cap and used.',
      answer: started,
      errors: ['run_cap_reached', 'not_found'],
    },
    graphql: { name: 'startManagedRun', description: "Counted against the month's run cap; past it, RUN_CAP_REACHED with cap and used in the extensions." },
  }),
};

export const managedRuns = {
  get: capability({
    auth: 'control',
    input: managedRunRef,
    output: ManagedRun,
    run: managedRun,
    rest: { method: 'get', path: '/v1/managed-runs/:id', tag, summary: 'One managed run', answer: 'The run.', errors: ['not_found'] },
    graphql: { name: 'managedRun' },
  }),
  // REST has these live, as server-sent events at GET /v1/managed-runs/:id/events (resumable)
  events: capability({
    auth: 'control',
    kind: 'query',
    input: runEventsInput,
    output: z.array(ManagedRunEvent),
    run: managedRunEvents,
    rest: null,
    graphql: { name: 'managedRunEvents', description: 'The events after `after` (0 for all), up to 500; the SSE stream has them live.' },
  }),
  cancel: capability({
    auth: 'control',
    input: managedRunRef,
    output: ManagedRun,
    run: cancelManagedRun,
    rest: {
      method: 'post',
      path: '/v1/managed-runs/:id/cancel',
      tag,
      summary: 'Cancel a managed run',
      description: 'No turn or step after the current one; its proposed actions can no longer run. A repeat answers the run; a run that has ended, 409.',
      answer: 'The run, cancelled.',
      errors: ['not_found', 'conflict'],
    },
    graphql: { name: 'cancelManagedRun', description: 'Cancels a running or waiting run; its proposed actions can no longer run.' },
  }),
  execute: capability({
    auth: 'control',
    input: managedActionRef,
    output: ExecutedAction,
    run: executeManagedAction,
    rest: {
      method: 'post',
      path: '/v1/managed-runs/:id/actions/:action/execute',
      tag,
      summary: 'Execute one proposed action',
      description: 'Calls the action’s connection once; a repeat answers the first result with replayed: true.',
      answer: 'The action and its result.',
      errors: ['not_found', 'conflict', 'address_refused', 'connection_failed'],
    },
    graphql: {
      name: 'executeManagedAction',
      description: 'Executes (approves) one proposed action against its connection, once; a repeat answers the first result.',
      shape: { schema: ExecutedManagedAction, present: (a: { replayed: boolean }) => ({ action: a, replayed: a.replayed }) },
    },
  }),
};
