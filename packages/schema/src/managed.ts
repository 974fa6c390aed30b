// Connections and managed agents (spec 4.5): what a tenant writes, checked on the server.
import { z } from 'zod';

/** A connection's or an agent's name: lower-case letters, digits, `-` and `_`. */
export const resourceName = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be 1–64 lower-case letters, digits, - or _, starting with a letter or digit');

/** PUT /v1/connections/:name. The secret is stored sealed and never returned; omitted, the stored one is kept. */
export const putConnectionRequest = z
  .object({
    base_url: z.string().min(1).max(2048),
    secret: z.string().min(1).max(4096).optional(),
  })
  .strict();
export type PutConnectionRequest = z.infer<typeof putConnectionRequest>;

const modelName = z.string().min(1).max(256).regex(/^[\x20-\x7e]+$/, 'must be printable ASCII');

/** One LLM step of a chain: its prompt may name `{{input}}` (the run's input) and `{{previous}}` (the step before's answer). */
export const chainStep = z
  .object({
    name: resourceName,
    prompt: z.string().min(1).max(20_000),
    model: modelName.optional(),
  })
  .strict();

/** A chain: ordered LLM steps through the gateway's own completion pipeline. */
export const chainConfig = z
  .object({
    kind: z.literal('chain'),
    model: modelName.default('auto'),
    steps: z.array(chainStep).min(1).max(20),
  })
  .strict()
  .refine((c) => new Set(c.steps.map((s) => s.name)).size === c.steps.length, { message: 'step names must be unique', path: ['steps'] });

/** The model turns an action run takes when its agent does not say, and the most it may say. */
export const DEFAULT_MAX_STEPS = 8;
export const MAX_MAX_STEPS = 50;

/**
 * An action agent: a loop of up to max_steps model turns over the tenant's connections as tools;
 * each proposed call waits for approval (unless auto_approve names its tool) and its result goes
 * back to the model. A stored config without max_steps reads as the default.
 */
export const actionConfig = z
  .object({
    kind: z.literal('action'),
    model: modelName.default('auto'),
    connection: resourceName,
    instructions: z.string().min(1).max(20_000),
    methods: z.array(z.enum(['GET', 'POST'])).min(1).default(['GET', 'POST']),
    /** The most model turns a run takes (the step cap), each action's result fed back between them. */
    max_steps: z.number().int().min(1).max(MAX_MAX_STEPS).default(DEFAULT_MAX_STEPS),
    /** Tools (connection names) whose calls run without a person's approval. */
    auto_approve: z.array(resourceName).max(100).optional(),
  })
  .strict();

/** A job config, by kind. An unknown kind is refused with the kinds that exist. */
export const managedAgentConfig = z.discriminatedUnion('kind', [chainConfig, actionConfig], { error: 'kind must be chain or action' });
export type ManagedAgentConfig = z.infer<typeof managedAgentConfig>;

/** POST /v1/managed-agents */
export const createManagedAgentRequest = z
  .object({
    name: resourceName,
    config: managedAgentConfig,
  })
  .strict();

/** POST /v1/managed-agents/:id/runs */
export const startRunRequest = z
  .object({
    input: z.string().max(100_000).default(''),
  })
  .strict();

/** POST /v1/managed-agents/playground: a custom job config, validated before a run is counted. */
export const playgroundRequest = z
  .object({
    config: managedAgentConfig,
    input: z.string().max(100_000).default(''),
  })
  .strict();

/** What the LLM of an action agent proposes (the arguments of a connection's tool). */
export const proposedCall = z
  .object({
    method: z.enum(['GET', 'POST']),
    path: z.string().min(1).max(2048).regex(/^\/(?!\/)/, 'must be a path starting with a single /'),
    body: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
export type ProposedCall = z.infer<typeof proposedCall>;

/** How late (seconds) a missed schedule tick may still fire when the schedule does not say, and the most it may say. */
export const DEFAULT_CATCH_UP_S = 3600;
export const MAX_CATCH_UP_S = 7 * 24 * 3600;

/** PUT /v1/managed-agents/:id/schedule: a five-field cron expression (UTC) and the input of each run it starts. */
export const putScheduleRequest = z
  .object({
    cron: z.string().min(9).max(200),
    input: z.string().max(100_000).default(''),
    /**
     * A tick missed while no gateway ran fires once (the most recent one only) if it is at most this
     * many seconds old when a gateway starts or sweeps; 0: missed ticks never fire.
     */
    catch_up_s: z.number().int().min(0).max(MAX_CATCH_UP_S).default(DEFAULT_CATCH_UP_S),
  })
  .strict();
export const putScheduleInput = putScheduleRequest.extend({ id: z.string().min(1).max(64) });

/** Path inputs of the connection and managed-agent routes (documented with the body they come with). */
export const connectionRef = z.object({ name: resourceName }).strict();
export const putConnectionInput = putConnectionRequest.extend({ name: resourceName });
export const managedAgentRef = z.object({ id: z.string().min(1).max(64) }).strict();
export const startRunInput = startRunRequest.extend({ id: z.string().min(1).max(64) });
export const managedRunRef = z.object({ id: z.string().min(1).max(64) }).strict();
export const managedActionRef = z.object({ id: z.string().min(1).max(64), action: z.string().min(1).max(64) }).strict();
/** A run's events after `after` (the SSE id last seen; 0 for all), for the doors without a stream. */
export const runEventsInput = managedRunRef.extend({ after: z.number().int().min(0).default(0) }).strict();
