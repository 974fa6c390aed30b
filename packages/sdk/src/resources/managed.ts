// Connections (a site managed agents act on; the secret is never returned), the agents the
// platform runs, and their runs. Routes and types are the server's capabilities
// (rest/routes.gen.ts). A run's live events are REST's server-sent stream,
// `GET /v1/managed-runs/:id/events`; the tRPC client reads them page by page (`managedRuns.events`).
import { callCapability, type CallOptions, type CapabilityInput, type CapabilityOutput } from '../rest/route.ts';
import type { Transport } from '../transport.ts';

export type Connection = CapabilityOutput<'connections.get'>;
/** A connection to store: its base URL and, optionally, its secret (left out, the stored one is kept). */
export type ConnectionInput = Omit<CapabilityInput<'connections.put'>, 'name'>;
export type ManagedAgent = CapabilityOutput<'managedAgents.create'>;
export type ManagedRun = CapabilityOutput<'managedRuns.get'>;
export type ManagedRunSummary = CapabilityOutput<'managedAgents.runs'>[number];
export type ExecutedAction = CapabilityOutput<'managedRuns.execute'>;

export class Connections {
  readonly #t: Transport;

  constructor(t: Transport) {
    this.#t = t;
  }

  /** Every connection, never a secret. */
  list(opts?: CallOptions): Promise<Connection[]> {
    return callCapability(this.#t, 'connections.list', undefined, opts);
  }

  get(name: string, opts?: CallOptions): Promise<Connection> {
    return callCapability(this.#t, 'connections.get', { name }, opts);
  }

  /** Stores or replaces a connection (http(s) only; local, private and special-purpose addresses are refused). */
  put(name: string, input: ConnectionInput, opts?: CallOptions): Promise<Connection> {
    return callCapability(this.#t, 'connections.put', { ...input, name }, opts);
  }

  async remove(name: string, opts?: CallOptions): Promise<void> {
    await callCapability(this.#t, 'connections.remove', { name }, opts);
  }
}

export class ManagedAgents {
  readonly #t: Transport;

  constructor(t: Transport) {
    this.#t = t;
  }

  list(opts?: CallOptions): Promise<ManagedAgent[]> {
    return callCapability(this.#t, 'managedAgents.list', undefined, opts);
  }

  /** Creates a managed agent: a `chain` of prompts or an `action` on a connection. */
  create(input: CapabilityInput<'managedAgents.create'>, opts?: CallOptions): Promise<ManagedAgent> {
    return callCapability(this.#t, 'managedAgents.create', input, opts);
  }

  /** Runs a custom job config (validated before a run is counted against the month's run cap). */
  playground(input: CapabilityInput<'managedAgents.playground'>, opts?: CallOptions): Promise<ManagedRun> {
    return callCapability(this.#t, 'managedAgents.playground', input, opts);
  }

  /** The agent's latest 50 runs, newest first. */
  runs(agentId: string, opts?: CallOptions): Promise<ManagedRunSummary[]> {
    return callCapability(this.#t, 'managedAgents.runs', { id: agentId }, opts);
  }

  /** Starts a run; past the month's run cap, an OptimizerError 402 `run_cap_reached`. */
  startRun(agentId: string, input: Omit<CapabilityInput<'managedAgents.startRun'>, 'id'> = {}, opts?: CallOptions): Promise<ManagedRun> {
    return callCapability(this.#t, 'managedAgents.startRun', { ...input, id: agentId }, opts);
  }

  /** The agent's schedule: its next tick and the last one fired; an OptimizerError 404 when it has none. */
  getSchedule(agentId: string, opts?: CallOptions): Promise<CapabilityOutput<'managedAgents.getSchedule'>> {
    return callCapability(this.#t, 'managedAgents.getSchedule', { id: agentId }, opts);
  }

  /**
   * Sets the agent's cron schedule (five fields, UTC); each tick starts one run with `input`, once
   * across replicas; a tick missed while no gateway ran fires once if at most `catch_up_s` old (default 3600; 0 never).
   */
  schedule(agentId: string, input: Omit<CapabilityInput<'managedAgents.schedule'>, 'id'>, opts?: CallOptions): Promise<CapabilityOutput<'managedAgents.schedule'>> {
    return callCapability(this.#t, 'managedAgents.schedule', { ...input, id: agentId }, opts);
  }

  /** Removes the agent's schedule. */
  unschedule(agentId: string, opts?: CallOptions): Promise<CapabilityOutput<'managedAgents.unschedule'>> {
    return callCapability(this.#t, 'managedAgents.unschedule', { id: agentId }, opts);
  }
}

export class ManagedRuns {
  readonly #t: Transport;

  constructor(t: Transport) {
    this.#t = t;
  }

  get(runId: string, opts?: CallOptions): Promise<ManagedRun> {
    return callCapability(this.#t, 'managedRuns.get', { id: runId }, opts);
  }

  /** Executes one proposed action against its connection, once; a repeat answers the first result with `replayed: true`. */
  execute(runId: string, action: string, opts?: CallOptions): Promise<ExecutedAction> {
    return callCapability(this.#t, 'managedRuns.execute', { id: runId, action }, opts);
  }

  /** Cancels a run: its proposed actions fail as cancelled, and its events end on `run.cancelled`; an ended run is a 409. */
  cancel(runId: string, opts?: CallOptions): Promise<CapabilityOutput<'managedRuns.cancel'>> {
    return callCapability(this.#t, 'managedRuns.cancel', { id: runId }, opts);
  }
}
