// The tRPC door's instance: its context (who is asking), the error shape every procedure
// answers in (the catalogue's code, type and field beside tRPC's own code, as REST's envelope
// carries them), and the middlewares that authenticate. Procedures are made from the
// capabilities (trpc/procedures.ts); router.ts puts them together.
import { initTRPC, TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import type { z } from 'zod';
import type { Tenant } from '../domain/tenant.ts';
import { ApiError, errorCatalogue, type ErrorCode } from '../errors.ts';
import { toApiError } from '../failures/to-api-error.ts';
import { parseWith, refuseUnstorable } from '../input/validate.ts';
import type { Services } from '../services.ts';

export interface TrpcContext {
  services: Services;
  /** The tenant the bearer key or the session cookie names, or null when neither does. */
  principal: Tenant | null;
  /** Why there is no principal (missing or invalid key), as the REST door would say it. */
  authError: ApiError | null;
  /** For a cookie-authenticated request that fails the CSRF check: the error its mutations answer. */
  csrfError: ApiError | null;
  /** Adds warnings to the response's `x-optimizer-warning` header (a batch's procedures share it). */
  warn: (warnings: string[]) => void;
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

export const t = initTRPC.context<TrpcContext>().create({
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
export async function domain<T>(fn: () => Promise<T> | T): Promise<T> {
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
export const tenant = t.procedure.use(async ({ ctx, type, next }) => {
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
export const open = t.procedure.use(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.code === 'BAD_REQUEST' && result.error.cause instanceof ApiError) throw toTrpcError(result.error.cause);
  return result;
});

/**
 * A shared schema as a tRPC input: the client sees its input type, the procedure its output
 * type, and the check is parseWith's, so the message and field are the REST door's.
 */
export function shared<S extends z.ZodType>(schema: S, freeText = false) {
  const parse = (raw: unknown): z.output<S> => {
    // text PostgreSQL cannot store is refused as REST refuses it (a free-text input is checked where it is taken)
    if (!freeText) refuseUnstorable(raw, 'input field');
    return parseWith(schema, raw);
  };
  return { _input: undefined as unknown as z.input<S>, _output: undefined as unknown as z.output<S>, parse };
}
