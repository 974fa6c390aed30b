// The tRPC door (design §2): every tenant capability as a procedure, each a thin call into
// the domain (src/domain) with its input typed and checked by the capability's shared zod
// schema (packages/schema), so a client gets real types and a mistake reads as on REST:
// the same catalogue errors, carried in tRPC's shape.
import { initTRPC, TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import type { z } from 'zod';
import {
  activityQuery,
  agentKeyRef,
  alertSettingsPatch as alertSettingsInput,
  callRef,
  callsQuery,
  captureSettingsPatch as captureSettingsInput,
  createAgentInput,
  createWebhookRequest,
  discoveryInput,
  estimateRequest,
  eventsInput,
  guardSettingsPatch as guardSettingsInput,
  rateLimitSettingsPatch,
  outcomeRequest,
  providerRef,
  putProviderKeyInput,
  recordingRef,
  recordingsInput,
  reportInput,
  routingSettingsPatch,
  savingsSeriesQuery,
  stageInput,
  statementsQuery,
  stepCallsInput,
  stepPatchInput,
  topupRequest,
  autoTopupRequest,
  connectionRef,
  createManagedAgentRequest,
  managedActionRef,
  managedAgentRef,
  managedRunRef,
  playgroundRequest,
  putConnectionInput,
  runEventsInput,
  startRunInput,
  webhookRef,
  workflowRef,
} from '@optimizer/schema';
import { createAgent, createAgentKey, listAgentKeys, listAgents, revokeAgentKey } from '../domain/agents.ts';
import { alertSettings, createWebhook, putAlertSettings, removeWebhook, rotateWebhook } from '../domain/alerts.ts';
import { billingView, cancelSubscription, createTopup, estimateSavings, listStatements, savingsLedger, setAutoTopup, startSubscription, subscription } from '../domain/billing.ts';
import { captureSettings, getRecording, listRecordings, putCaptureSettings } from '../domain/capture.ts';
import { guardSettings, putGuardSettings } from '../domain/guard.ts';
import { putRateLimits, rateLimits } from '../domain/limits.ts';
import { getCall, listActivity, listCalls, savings, savingsSeries } from '../domain/calls.ts';
import { discoveryProgress, discoveryReport, setDiscovery } from '../domain/discovery.ts';
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
} from '../domain/managed.ts';
import { reportOutcome } from '../domain/outcomes.ts';
import { listProviderKeys, putProviderKey, putRoutingSettings, removeProviderKey, routingSettings } from '../domain/settings.ts';
import { agentGraph, listStepCalls, listSteps, patchStep } from '../domain/steps.ts';
import type { Tenant } from '../domain/tenant.ts';
import { finalizeReport, listWorkflows, moveWorkflow, workflowEventList, workflowLockfile, workflowReport, workflowStage } from '../domain/workflows.ts';
import { ApiError, errorCatalogue, type ErrorCode } from '../errors.ts';
import { toApiError } from '../http/error-handler.ts';
import { parseWith, refuseUnstorable } from '../http/validate.ts';
import type { Services } from '../services.ts';

export interface TrpcContext {
  services: Services;
  /** The tenant the bearer key or the session cookie names, or null when neither does. */
  principal: Tenant | null;
  /** Why there is no principal (missing or invalid key), as the REST door would say it. */
  authError: ApiError | null;
  /** For a cookie-authenticated request that fails the CSRF check: the error its mutations answer. */
  csrfError: ApiError | null;
}

/** Our catalogue's HTTP status, as the nearest tRPC code (tRPC answers with that code's status). */
const CODES: Record<number, TRPC_ERROR_CODE_KEY> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  402: 'PAYMENT_REQUIRED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  499: 'CLIENT_CLOSED_REQUEST',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
};

/** tRPC's own failures (a body that is not JSON, an unknown procedure, the wrong method) as the catalogue's codes. */
const FROM_TRPC: Partial<Record<TRPC_ERROR_CODE_KEY, ErrorCode>> = {
  PARSE_ERROR: 'invalid_json',
  BAD_REQUEST: 'invalid_request',
  UNAUTHORIZED: 'missing_api_key',
  FORBIDDEN: 'forbidden',
  NOT_FOUND: 'not_found',
  METHOD_NOT_SUPPORTED: 'invalid_request',
  NOT_IMPLEMENTED: 'invalid_request',
  TIMEOUT: 'request_timeout',
  CONFLICT: 'conflict',
  PRECONDITION_FAILED: 'invalid_request',
  PAYLOAD_TOO_LARGE: 'payload_too_large',
  UNSUPPORTED_MEDIA_TYPE: 'unsupported_media_type',
  UNPROCESSABLE_CONTENT: 'validation_failed',
  TOO_MANY_REQUESTS: 'rate_limited',
  BAD_GATEWAY: 'upstream_error',
  SERVICE_UNAVAILABLE: 'unavailable',
  GATEWAY_TIMEOUT: 'upstream_timeout',
};

/** An ApiError as a TRPCError; the ApiError rides as the cause, for the error formatter. */
export function toTrpcError(e: ApiError): TRPCError {
  return new TRPCError({ code: CODES[e.status] ?? 'INTERNAL_SERVER_ERROR', message: e.code === 'internal' ? 'Internal error.' : e.message, cause: e });
}

const t = initTRPC.context<TrpcContext>().create({
  // Every error names our stable code, its type and the offending field, as the REST envelope
  // does, and carries the same extra fields (a cap's {cap, used}, a vendor's status).
  errorFormatter({ shape, error }) {
    const api = error.cause instanceof ApiError ? error.cause : null;
    const retryAfter = api?.headers['retry-after'];
    // every error names a catalogue code: ours, or the nearest one for tRPC's own
    const apiCode: ErrorCode = api?.code ?? (error.cause instanceof SyntaxError ? 'invalid_json' : FROM_TRPC[error.code]) ?? 'internal';
    return { ...shape, data: { ...api?.extra, ...shape.data, stack: undefined, apiCode, type: errorCatalogue[apiCode].type, param: api?.param ?? null, ...(retryAfter ? { retryAfter: Number(retryAfter) } : {}) } };
  },
});

/** Runs a domain call, turning the catalogue's errors into tRPC's. */
async function domain<T>(fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ApiError) throw toTrpcError(err);
    // the database refusing a value is the caller's input; an outage is a 503, as on REST
    const api = toApiError(err);
    if (api.code !== 'internal') throw toTrpcError(api);
    throw err;
  }
}

/**
 * A tenant's procedure: refuses without a tenant, refuses a cookie-authenticated mutation that
 * fails the CSRF check, and gives an input the shared schema refused its catalogue status
 * (tRPC wraps every input failure as 400; ours is 422 `validation_failed` naming the field).
 */
const tenant = t.procedure.use(async ({ ctx, type, next }) => {
  if (!ctx.principal) throw toTrpcError(ctx.authError ?? new ApiError('missing_api_key'));
  if (type === 'mutation' && ctx.csrfError) throw toTrpcError(ctx.csrfError);
  const result = await next({ ctx: { ...ctx, principal: ctx.principal } });
  if (!result.ok && result.error.code === 'BAD_REQUEST' && result.error.cause instanceof ApiError) throw toTrpcError(result.error.cause);
  return result;
});

/**
 * A procedure open to anyone (spec 5: the estimate), whose input failures read as the
 * tenant's do.
 */
const open = t.procedure.use(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.code === 'BAD_REQUEST' && result.error.cause instanceof ApiError) throw toTrpcError(result.error.cause);
  return result;
});

/**
 * A shared schema as a tRPC input: the client sees its input type, the procedure its output
 * type, and the check is parseWith's, so the message and field are the REST door's.
 */
function shared<S extends z.ZodType>(schema: S) {
  const parse = (raw: unknown): z.output<S> => {
    // text PostgreSQL cannot store is refused as REST refuses it (the outcome's ids are checked where it is taken)
    if (schema !== (outcomeRequest as z.ZodType)) refuseUnstorable(raw, 'input field');
    return parseWith(schema, raw);
  };
  return { _input: undefined as unknown as z.input<S>, _output: undefined as unknown as z.output<S>, parse };
}

type Capability<S extends z.ZodType, R> = (s: Services, t: Tenant, input: z.output<S>) => Promise<R> | R;

/** A read capability with input, as a query. */
function query<S extends z.ZodType, R>(schema: S, fn: Capability<S, R>) {
  return tenant.input(shared(schema)).query(({ ctx, input }) => domain(() => fn(ctx.services, ctx.principal, input as z.output<S>)));
}

/** A write capability, as a mutation. */
function mutation<S extends z.ZodType, R>(schema: S, fn: Capability<S, R>) {
  return tenant.input(shared(schema)).mutation(({ ctx, input }) => domain(() => fn(ctx.services, ctx.principal, input as z.output<S>)));
}

/** A read capability without input. */
function read<R>(fn: (s: Services, t: Tenant) => Promise<R> | R) {
  return tenant.query(({ ctx }) => domain(() => fn(ctx.services, ctx.principal)));
}

export const appRouter = t.router({
  calls: t.router({
    list: query(callsQuery, listCalls),
    get: query(callRef, getCall),
    activity: query(activityQuery, listActivity),
  }),
  savings: read(savings),
  savingsSeries: query(savingsSeriesQuery, savingsSeries),
  workflows: read(listWorkflows),
  workflow: t.router({
    stage: query(workflowRef, workflowStage),
    moveTo: mutation(stageInput, moveWorkflow),
    report: query(reportInput, workflowReport),
    finalize: mutation(workflowRef, finalizeReport),
    lockfile: query(workflowRef, workflowLockfile),
    events: query(eventsInput, workflowEventList),
    steps: query(workflowRef, listSteps),
    patchStep: mutation(stepPatchInput, patchStep),
    stepCalls: query(stepCallsInput, listStepCalls),
    graph: query(workflowRef, agentGraph),
    recordings: query(recordingsInput, listRecordings),
    recording: query(recordingRef, getRecording),
    subscription: query(workflowRef, subscription),
    startSubscription: mutation(workflowRef, startSubscription),
    cancelSubscription: mutation(workflowRef, cancelSubscription),
  }),
  discovery: t.router({
    progress: query(workflowRef, discoveryProgress),
    set: mutation(discoveryInput, setDiscovery),
    report: query(workflowRef, discoveryReport),
  }),
  agents: t.router({
    list: read(listAgents),
    create: mutation(createAgentInput, createAgent),
    keys: query(workflowRef, listAgentKeys),
    createKey: mutation(workflowRef, createAgentKey),
    revokeKey: mutation(agentKeyRef, revokeAgentKey),
  }),
  settings: t.router({
    routing: read(routingSettings),
    setRouting: mutation(routingSettingsPatch, putRoutingSettings),
    providerKeys: read(listProviderKeys),
    putProviderKey: mutation(putProviderKeyInput, putProviderKey),
    removeProviderKey: mutation(providerRef, removeProviderKey),
    capture: read(captureSettings),
    setCapture: mutation(captureSettingsInput, putCaptureSettings),
    guard: read(guardSettings),
    setGuard: mutation(guardSettingsInput, putGuardSettings),
    limits: read(rateLimits),
    setLimits: mutation(rateLimitSettingsPatch, putRateLimits),
    alerts: read(alertSettings),
    setAlerts: mutation(alertSettingsInput, putAlertSettings),
    createWebhook: mutation(createWebhookRequest, createWebhook),
    rotateWebhook: mutation(webhookRef, rotateWebhook),
    removeWebhook: mutation(webhookRef, removeWebhook),
  }),
  billing: t.router({
    view: read(billingView),
    statements: query(statementsQuery, listStatements),
    savingsLedger: query(statementsQuery, savingsLedger),
    topup: mutation(topupRequest, createTopup),
    setAutoTopup: mutation(autoTopupRequest, setAutoTopup),
    estimate: open.input(shared(estimateRequest)).query(({ ctx, input }) => domain(() => estimateSavings(ctx.services, input))),
  }),
  outcomes: t.router({
    report: mutation(outcomeRequest, reportOutcome),
  }),
  connections: t.router({
    list: read(listConnections),
    put: mutation(putConnectionInput, putConnection),
    remove: mutation(connectionRef, removeConnection),
  }),
  managedAgents: t.router({
    list: read(listManagedAgents),
    create: mutation(createManagedAgentRequest, createManagedAgent),
    playground: mutation(playgroundRequest, runPlayground),
    runs: query(managedAgentRef, listManagedRuns),
    startRun: mutation(startRunInput, startManagedRun),
  }),
  managedRuns: t.router({
    get: query(managedRunRef, managedRun),
    events: query(runEventsInput, managedRunEvents),
    execute: mutation(managedActionRef, executeManagedAction),
  }),
});

export type AppRouter = typeof appRouter;
