// What the connection and managed-agent capabilities answer: connections (never their secret),
// managed agents and their runs, a run with its steps and proposed actions, a run's events, and
// an executed action.
import { z } from 'zod';
import { managedAgentConfig } from '@optimizer/schema';
import { asJson, named, time } from '../shapes.ts';

export const Connection = named(
  'Connection',
  z.object({ name: z.string(), base_url: z.string(), secret_set: z.boolean(), created_at: time(), updated_at: time() }).describe('A site managed agents act on; its secret is never returned.'),
);

export const ManagedSchedule = named(
  'ManagedSchedule',
  z
    .object({
      agent: z.string(),
      cron: z.string(),
      input: z.string(),
      catch_up_s: z.number().int().describe('How late a missed tick may still fire (once, the most recent one); 0: never.'),
      next_at: time(),
      last_fired_at: time().nullable(),
      last_tick: time().nullable().describe('The tick the last run was started for (a caught-up tick is earlier than last_fired_at).'),
      last_run: z.string().nullable(),
    })
    .describe("A managed agent's cron schedule (UTC): each tick starts one run with this input."),
);

export const RemovedSchedule = named('RemovedManagedSchedule', z.object({ agent: z.string(), deleted: z.literal(true) }));

export const RemovedConnection = named('RemovedConnection', z.object({ name: z.string(), deleted: z.literal(true) }));

const Kind = named('ManagedAgentKind', z.enum(['chain', 'action']).describe('`chain`: ordered LLM steps; `action`: proposes calls to a connection, each approved before it runs.'));
const RunStatus = named('ManagedRunStatus', z.enum(['running', 'waiting_approval', 'completed', 'failed', 'cancelled']));
const ActionStatus = named('ManagedActionStatus', z.enum(['proposed', 'executing', 'executed', 'failed']));
const Method = named('ManagedActionMethod', z.enum(['GET', 'POST']));

export const ManagedRunSummary = named(
  'ManagedRunSummary',
  z
    .object({ id: z.string(), agent: z.string().nullable(), kind: Kind, status: RunStatus, input: z.string(), error: z.string().nullable(), created_at: time(), updated_at: time() })
    .describe('A run in a list; read managedRun for its steps and actions.'),
);

export const ManagedAgent = named(
  'ManagedAgent',
  z
    .object({
      id: z.string(),
      name: z.string(),
      kind: Kind,
      config: asJson(managedAgentConfig).describe('The job config, as validated.'),
      created_at: time().nullable(),
    })
    .describe('A workflow the platform runs for the tenant: a chain of LLM steps, or an agent that proposes calls to a connection.'),
);

const ManagedActionResponse = named('ManagedActionResponse', z.object({ status: z.number().int(), body: z.string().nullable() }));

const actionFields = {
  id: z.string(),
  connection: z.string(),
  method: Method,
  path: z.string(),
  body: asJson(z.record(z.string(), z.unknown()).nullable()),
  status: ActionStatus,
  response: ManagedActionResponse.nullable(),
  error: z.string().nullable(),
  executed_at: time().nullable(),
};

const ManagedAction = named('ManagedAction', z.object(actionFields).describe('A call a run proposed to its connection; it runs once, when executed (approved).'));

const replayed = () => z.boolean().describe('True when the action had already run: this is its first result.');

/** REST's and tRPC's executed action: the action, and whether this was a repeat. */
export const ExecutedAction = z.object({ ...actionFields, replayed: replayed() }).describe('The action and its result; `replayed` when it had already run.');

/** GraphQL's: the action as a field of its own. */
export const ExecutedManagedAction = named('ExecutedManagedAction', z.object({ action: ManagedAction, replayed: replayed() }));

const ManagedRunStep = named('ManagedRunStep', z.object({ name: z.string(), output: z.string() }));

export const ManagedRunEvent = named(
  'ManagedRunEvent',
  z
    .object({ seq: z.number().int(), type: z.string(), data: asJson(z.unknown()), created_at: time().nullable() })
    .describe("One of a run's events, in order; seq is the id of the same event on the SSE stream."),
);

export const ManagedRun = named(
  'ManagedRun',
  z
    .object({
      id: z.string(),
      agent: z.string().nullable(),
      kind: Kind,
      status: RunStatus,
      input: z.string(),
      output: z.string().nullable(),
      steps: z.array(ManagedRunStep),
      error: z.string().nullable(),
      actions: z.array(ManagedAction),
      events_url: z.string().describe('Its events over SSE (resumable with Last-Event-ID).'),
      created_at: time().nullable(),
      updated_at: time().nullable(),
    })
    .describe('A managed run: its status, the output of each finished step and the actions it proposed.'),
);
