// Connections and managed agents over GraphQL (spec 4.5): connections (never their secret),
// agents with their runs, a run with its steps, proposed actions and events, and the writes
// (put/remove a connection, create an agent, start a run or a playground run, execute an
// action). REST's fields, camelCased; a job config and an event's data are JSON as on REST.
import {
  connectionRef,
  createManagedAgentRequest,
  managedActionRef,
  managedAgentRef,
  managedRunRef,
  playgroundRequest,
  putConnectionInput,
  runEventsInput,
  startRunInput,
} from '@optimizer/schema';
import {
  createManagedAgent,
  executeManagedAction,
  listConnections,
  listManagedAgents,
  listManagedRuns,
  managedRun,
  managedRunEvents,
  putConnection,
  removeConnection,
  runPlayground,
  startManagedRun,
} from '../../domain/managed.ts';
import { type Builder, capability, reader, requireTenant } from '../builder.ts';

export function registerManaged(builder: Builder) {
  type ConnectionView = Awaited<ReturnType<typeof listConnections>>[number];
  type AgentView = Awaited<ReturnType<typeof listManagedAgents>>[number];
  type RunSummary = Awaited<ReturnType<typeof listManagedRuns>>[number];
  type RunView = Awaited<ReturnType<typeof managedRun>>;
  type ActionView = RunView['actions'][number];
  type Executed = Awaited<ReturnType<typeof executeManagedAction>>;
  type EventView = Awaited<ReturnType<typeof managedRunEvents>>[number];

  const Kind = builder.enumType('ManagedAgentKind', { description: '`chain`: ordered LLM steps; `action`: proposes calls to a connection, each approved before it runs.', values: ['chain', 'action'] as const });
  const RunStatus = builder.enumType('ManagedRunStatus', { values: ['running', 'waiting_approval', 'completed', 'failed'] as const });
  const ActionStatus = builder.enumType('ManagedActionStatus', { values: ['proposed', 'executing', 'executed', 'failed'] as const });
  const Method = builder.enumType('ManagedActionMethod', { values: ['GET', 'POST'] as const });

  const Connection = builder.objectRef<ConnectionView>('Connection').implement({
    description: 'A site managed agents act on; its secret is never returned.',
    fields: (t) => ({
      name: t.exposeString('name'),
      baseUrl: t.exposeString('base_url'),
      secretSet: t.exposeBoolean('secret_set'),
      createdAt: t.exposeString('created_at'),
      updatedAt: t.exposeString('updated_at'),
    }),
  });

  const RemovedConnection = builder.objectRef<{ name: string; deleted: true }>('RemovedConnection').implement({
    fields: (t) => ({ name: t.exposeString('name'), deleted: t.exposeBoolean('deleted') }),
  });

  const ManagedRunSummary = builder.objectRef<RunSummary>('ManagedRunSummary').implement({
    description: 'A run in a list; read managedRun for its steps and actions.',
    fields: (t) => ({
      id: t.exposeString('id'),
      agent: t.exposeString('agent', { nullable: true }),
      kind: t.expose('kind', { type: Kind }),
      status: t.expose('status', { type: RunStatus }),
      input: t.exposeString('input'),
      error: t.exposeString('error', { nullable: true }),
      createdAt: t.exposeString('created_at'),
      updatedAt: t.exposeString('updated_at'),
    }),
  });

  const ManagedAgent = builder.objectRef<AgentView>('ManagedAgent').implement({
    description: 'A workflow the platform runs for the tenant: a chain of LLM steps, or an agent that proposes calls to a connection.',
    fields: (t) => ({
      id: t.exposeString('id'),
      name: t.exposeString('name'),
      kind: t.expose('kind', { type: Kind }),
      config: t.field({ type: 'JSON', description: 'The job config, as validated.', resolve: (a) => a.config }),
      createdAt: t.exposeString('created_at', { nullable: true }),
      runs: t.field({ type: [ManagedRunSummary], description: 'The latest 50 runs, newest first.', resolve: (a, _args, ctx) => listManagedRuns(ctx.services, requireTenant(ctx), { id: a.id }) }),
    }),
  });

  const ActionResponse = builder.objectRef<NonNullable<ActionView['response']>>('ManagedActionResponse').implement({
    fields: (t) => ({ status: t.exposeInt('status'), body: t.exposeString('body', { nullable: true }) }),
  });

  const ManagedAction = builder.objectRef<ActionView>('ManagedAction').implement({
    description: 'A call a run proposed to its connection; it runs once, when executed (approved).',
    fields: (t) => ({
      id: t.exposeString('id'),
      connection: t.exposeString('connection'),
      method: t.expose('method', { type: Method }),
      path: t.exposeString('path'),
      body: t.field({ type: 'JSON', nullable: true, resolve: (a) => a.body }),
      status: t.expose('status', { type: ActionStatus }),
      response: t.field({ type: ActionResponse, nullable: true, resolve: (a) => a.response }),
      error: t.exposeString('error', { nullable: true }),
      executedAt: t.exposeString('executed_at', { nullable: true }),
    }),
  });

  const ExecutedAction = builder.objectRef<Executed>('ExecutedManagedAction').implement({
    fields: (t) => ({
      action: t.field({ type: ManagedAction, resolve: (a) => a }),
      replayed: t.exposeBoolean('replayed', { description: 'True when the action had already run: this is its first result.' }),
    }),
  });

  const RunStep = builder.objectRef<RunView['steps'][number]>('ManagedRunStep').implement({
    fields: (t) => ({ name: t.exposeString('name'), output: t.exposeString('output') }),
  });

  const RunEvent = builder.objectRef<EventView>('ManagedRunEvent').implement({
    description: "One of a run's events, in order; seq is the id of the same event on the SSE stream.",
    fields: (t) => ({
      seq: t.exposeInt('seq'),
      type: t.exposeString('type'),
      data: t.field({ type: 'JSON', resolve: (e) => e.data }),
      createdAt: t.exposeString('created_at', { nullable: true }),
    }),
  });

  const ManagedRun = builder.objectRef<RunView>('ManagedRun').implement({
    description: 'A managed run: its status, the output of each finished step and the actions it proposed.',
    fields: (t) => ({
      id: t.exposeString('id'),
      agent: t.exposeString('agent', { nullable: true }),
      kind: t.expose('kind', { type: Kind }),
      status: t.expose('status', { type: RunStatus }),
      input: t.exposeString('input'),
      output: t.exposeString('output', { nullable: true }),
      steps: t.field({ type: [RunStep], resolve: (r) => r.steps }),
      error: t.exposeString('error', { nullable: true }),
      actions: t.field({ type: [ManagedAction], resolve: (r) => r.actions }),
      eventsUrl: t.exposeString('events_url', { description: 'Its events over SSE (resumable with Last-Event-ID).' }),
      createdAt: t.exposeString('created_at', { nullable: true }),
      updatedAt: t.exposeString('updated_at', { nullable: true }),
    }),
  });

  builder.queryFields((t) => ({
    connections: t.field({ type: [Connection], resolve: reader(listConnections) }),
    managedAgents: t.field({ type: [ManagedAgent], resolve: reader(listManagedAgents) }),
    managedAgentRuns: t.field({ type: [ManagedRunSummary], args: { id: t.arg.string({ required: true }) }, resolve: capability(managedAgentRef, listManagedRuns) }),
    managedRun: t.field({ type: ManagedRun, args: { id: t.arg.string({ required: true }) }, resolve: capability(managedRunRef, managedRun) }),
    managedRunEvents: t.field({
      type: [RunEvent],
      description: 'The events after `after` (0 for all), up to 500; the SSE stream has them live.',
      args: { id: t.arg.string({ required: true }), after: t.arg.int() },
      resolve: capability(runEventsInput, managedRunEvents),
    }),
  }));

  builder.mutationFields((t) => ({
    putConnection: t.field({
      type: Connection,
      description: 'Creates or replaces a connection; the secret, left out, keeps the stored one.',
      args: { name: t.arg.string({ required: true }), baseUrl: t.arg.string({ required: true }), secret: t.arg.string() },
      resolve: capability(putConnectionInput, putConnection),
    }),
    removeConnection: t.field({ type: RemovedConnection, args: { name: t.arg.string({ required: true }) }, resolve: capability(connectionRef, removeConnection) }),
    createManagedAgent: t.field({ type: ManagedAgent, args: { name: t.arg.string({ required: true }), config: t.arg({ type: 'JSON', required: true }) }, resolve: capability(createManagedAgentRequest, createManagedAgent) }),
    runPlayground: t.field({
      type: ManagedRun,
      description: 'Runs a custom job config, validated before a run is counted.',
      args: { config: t.arg({ type: 'JSON', required: true }), input: t.arg.string() },
      resolve: capability(playgroundRequest, runPlayground),
    }),
    startManagedRun: t.field({
      type: ManagedRun,
      description: "Counted against the month's run cap; past it, RUN_CAP_REACHED with cap and used in the extensions.",
      args: { id: t.arg.string({ required: true }), input: t.arg.string() },
      resolve: capability(startRunInput, startManagedRun),
    }),
    executeManagedAction: t.field({
      type: ExecutedAction,
      description: 'Executes (approves) one proposed action against its connection, once; a repeat answers the first result.',
      args: { id: t.arg.string({ required: true }), action: t.arg.string({ required: true }) },
      resolve: capability(managedActionRef, executeManagedAction),
    }),
  }));
}
