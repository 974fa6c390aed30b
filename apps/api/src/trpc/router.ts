// The tRPC door (design §2): the tenant's control plane as procedures, each a thin call into
// the same domain services the REST routes use, with the same validation (the zod schemas
// of @optimizer/schema through parseWith) and so the same errors, carried in tRPC's shape.
import { initTRPC, TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { z } from 'zod';
import { callsQuery, outcomeRequest, reportQuery, routingSettingsWrite, stageRequest, workflowRef } from '@optimizer/schema';
import { ApiError } from '../errors.ts';
import { isDependencyDown } from '../http/dependency-down.ts';
import { parseWith } from '../http/validate.ts';
import { workflowList } from '../reporting/workflows.ts';
import type { Principal } from '../tenancy/key-cache.ts';
import type { Services } from '../services.ts';

export interface TrpcContext {
  services: Services;
  /** The tenant the bearer key names, or null when it is missing or unknown. */
  principal: Principal | null;
  /** Why there is no principal (missing or invalid key), as the REST door would say it. */
  authError: ApiError | null;
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

/** An ApiError as a TRPCError; the ApiError rides as the cause, for the error formatter. */
export function toTrpcError(e: ApiError): TRPCError {
  return new TRPCError({ code: CODES[e.status] ?? 'INTERNAL_SERVER_ERROR', message: e.code === 'internal' ? 'Internal error.' : e.message, cause: e });
}

const t = initTRPC.context<TrpcContext>().create({
  // Every error names our stable code and the offending field, as the REST envelope does.
  errorFormatter({ shape, error }) {
    const api = error.cause instanceof ApiError ? error.cause : null;
    return { ...shape, data: { ...shape.data, stack: undefined, apiCode: api?.code ?? null, param: api?.param ?? null } };
  },
});

/** Runs a domain call, turning the catalogue's errors into tRPC's. */
async function domain<T>(fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ApiError) throw toTrpcError(err);
    if (isDependencyDown(err)) throw toTrpcError(new ApiError('unavailable', undefined, { cause: err }));
    throw err;
  }
}

const tenant = t.procedure.use(({ ctx, next }) => {
  if (!ctx.principal) throw toTrpcError(ctx.authError ?? new ApiError('missing_api_key'));
  return next({ ctx: { ...ctx, principal: ctx.principal } });
});

/** Inputs are checked by the same schemas as on REST, so a mistake reads the same on every door. */
const anyInput = z.unknown();
const activityInput = z.object({ limit: z.number().int().min(1).max(500).default(50) }).strict();
/** A typed input checked by a shared schema through parseWith: a client gets the type, a mistake reads as on REST. */
const typed =
  <S extends z.ZodType>(schema: S) =>
  (raw: unknown): z.infer<S> =>
    parseWith(schema, raw);
const reportInput = workflowRef.extend(reportQuery.shape);
const stageInput = workflowRef.extend(stageRequest.shape);

export const appRouter = t.router({
  calls: t.router({
    list: tenant.input(anyInput).query(({ ctx, input }) => domain(() => ctx.services.callViews.calls(ctx.principal.accountId, parseWith(callsQuery, input ?? {})))),
    activity: tenant.input(anyInput).query(({ ctx, input }) => domain(() => ctx.services.callViews.activity(ctx.principal.accountId, parseWith(activityInput, input ?? {}).limit))),
  }),
  savings: tenant.query(({ ctx }) => domain(() => ctx.services.callViews.savings(ctx.principal.accountId))),
  workflows: tenant.query(({ ctx }) => domain(() => workflowList(ctx.services, ctx.principal.accountId))),
  workflow: t.router({
    stage: tenant.input(typed(workflowRef)).query(({ ctx, input }) => domain(async () => ({ id: input.id, stage: await ctx.services.workflowLife.stage(ctx.principal.accountId, input.id) }))),
    moveTo: tenant.input(typed(stageInput)).mutation(({ ctx, input }) => domain(() => ctx.services.workflowLife.moveTo(ctx.principal.accountId, input.id, input.stage))),
    report: tenant.input(typed(reportInput)).query(({ ctx, input }) => domain(() => ctx.services.workflowLife.report(ctx.principal.accountId, input.id, input.version))),
    finalize: tenant.input(typed(workflowRef)).mutation(({ ctx, input }) => domain(() => ctx.services.workflowLife.finalize(ctx.principal.accountId, input.id))),
    lockfile: tenant.input(typed(workflowRef)).query(({ ctx, input }) => domain(() => ctx.services.workflowLife.lockfile(ctx.principal.accountId, input.id))),
  }),
  settings: t.router({
    routing: tenant.query(({ ctx }) => domain(() => ctx.services.routingSettings.get(ctx.principal.accountId))),
    setRouting: tenant.input(anyInput).mutation(({ ctx, input }) => domain(() => ctx.services.routingSettings.put(ctx.principal.accountId, parseWith(routingSettingsWrite, input)))),
  }),
  outcomes: t.router({
    report: tenant.input(anyInput).mutation(({ ctx, input }) =>
      domain(() => ctx.services.outcomes.report(ctx.principal.accountId, ctx.principal.workflowId, parseWith(outcomeRequest, input))),
    ),
  }),
});

export type AppRouter = typeof appRouter;
