// Mounts the GraphQL door at /graphql on the Fastify app (graphql-yoga). Every operation
// needs a credential, checked before the request is even parsed, so nothing about the
// schema answers an unauthenticated caller: the admin bearer key (admin fields), or a
// tenant's bearer key or dashboard session (tenant fields), the cookie's mutations held to
// REST's CSRF rule. Domain failures (ApiError) become GraphQL errors with a stable
// extensions.code, our catalogue code (apiCode), the REST status and the field.
// A browser asking GET /graphql for HTML gets GraphiQL.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { getOperationAST, GraphQLError } from 'graphql';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { createYoga, maskError as defaultMaskError, type Plugin, type YogaLogger } from 'graphql-yoga';
import { ApiError, errorCatalogue, type ErrorCode } from '../errors.ts';
import { bearer, controlPrincipal } from '../http/auth.ts';
import { toApiError } from '../failures/to-api-error.ts';
import { closeIfBodyPending } from '../http/door-guard.ts';
import { csrfErrorOf } from '../http/session-cookie.ts';
import type { Logger } from '../logger.ts';
import type { Services } from '../services.ts';
import { fromWire, type GraphQLContext } from './builder.ts';
import type { CapabilityTree } from '../capabilities/capability.ts';
import { capabilities } from '../capabilities/index.ts';
import { schemasFor } from './schema.ts';
import { graphiqlPage } from './graphiql-page.ts';

export const GRAPHQL_PATH = '/graphql';

interface ServerContext {
  req: FastifyRequest;
  reply: FastifyReply;
  who: Who;
}

const codes: Partial<Record<ErrorCode, string>> = {
  validation_failed: 'BAD_USER_INPUT',
  invalid_request: 'BAD_USER_INPUT',
  invalid_json: 'BAD_USER_INPUT',
  address_refused: 'BAD_USER_INPUT',
  invalid_admin_key: 'UNAUTHENTICATED',
  missing_api_key: 'UNAUTHENTICATED',
  invalid_api_key: 'UNAUTHENTICATED',
  forbidden: 'FORBIDDEN',
  csrf_rejected: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  conflict: 'CONFLICT',
  internal: 'INTERNAL_SERVER_ERROR',
};

/** The ApiError a resolver threw, through GraphQL's wrapping (originalError) or a cause. */
function apiErrorOf(e: unknown): ApiError | null {
  let cur = e;
  for (let depth = 0; cur && depth < 5; depth++) {
    if (cur instanceof ApiError) return cur;
    const wrapped = cur as { originalError?: unknown; cause?: unknown };
    cur = wrapped.originalError ?? wrapped.cause;
  }
  return null;
}

/** An ApiError as a GraphQL error: code, the GraphQL name of the field, and the REST status for reference. */
export function toGraphQLError(e: ApiError, at?: GraphQLError): GraphQLError {
  const field = e.param ? fromWire(e.param) : null;
  const message = e.param && e.message.startsWith(`${e.param}: `) ? `${field}: ${e.message.slice(e.param.length + 2)}` : e.message;
  return new GraphQLError(message, {
    ...(at ? { nodes: at.nodes, source: at.source, positions: at.positions, path: at.path } : {}),
    // a 429's or 503's Retry-After (seconds) rides along, as REST's header does
    extensions: { ...e.extra, code: codes[e.code] ?? e.code.toUpperCase(), apiCode: e.code, type: e.entry.type, ...(field ? { field } : {}), status: e.status, ...(e.headers['retry-after'] ? { retryAfter: Number(e.headers['retry-after']) } : {}) },
  });
}

function maskError(error: unknown, message: string, isDev?: boolean): Error {
  // a database refusing a value (the caller's input) or an outage, as REST classifies them
  const api = apiErrorOf(error) ?? toApiError(error instanceof GraphQLError ? (error.originalError ?? error) : error);
  if (api.code !== 'internal') return toGraphQLError(api, error instanceof GraphQLError ? error : undefined);
  return defaultMaskError(error, message, isDev);
}

/** The catalogue's code for a GraphQL error that did not come from one (the document's syntax or validation, the transport). */
function catalogueCodeOf(e: GraphQLError): ErrorCode {
  const code = e.extensions.code;
  if (code === 'GRAPHQL_PARSE_FAILED' || code === 'GRAPHQL_VALIDATION_FAILED' || code === 'BAD_USER_INPUT' || code === 'BAD_REQUEST') return 'invalid_request';
  if (code === 'UNAUTHENTICATED') return 'missing_api_key';
  if (code === 'FORBIDDEN') return 'forbidden';
  const status = (e.extensions.http as { status?: number } | undefined)?.status;
  if (status === 413) return 'payload_too_large';
  if (status === 415) return 'unsupported_media_type';
  if (status === 404) return 'not_found';
  if (status !== undefined && status >= 400 && status < 500) return /JSON/i.test(e.message) ? 'invalid_json' : 'invalid_request';
  return 'internal';
}

/** Every error an answer carries names the catalogue's code (apiCode), its type and status, as the errors our resolvers throw do. */
function useCatalogueCodes(): Plugin<GraphQLContext> {
  return {
    onResultProcess({ result }) {
      for (const r of Array.isArray(result) ? result : [result]) {
        const errors = (r as { errors?: readonly GraphQLError[] }).errors;
        for (const e of errors ?? []) {
          if (!(e instanceof GraphQLError) || typeof e.extensions.apiCode === 'string') continue;
          const code = catalogueCodeOf(e);
          const ext = e.extensions as Record<string, unknown>;
          ext.apiCode = code;
          ext.type = errorCatalogue[code].type;
          ext.status ??= errorCatalogue[code].status;
          ext.code ??= codes[code] ?? code.toUpperCase();
        }
      }
    },
  };
}

/** Yoga logs a masked error at error level; a caller's mistake logs at its catalogue level, as on REST. */
function yogaLogger(log: Logger): YogaLogger {
  return {
    debug: (...args) => log.debug({ args }, 'graphql'),
    info: (...args) => log.info({ args }, 'graphql'),
    warn: (...args) => log.warn({ args }, 'graphql'),
    error: (...args) => {
      const api = apiErrorOf(args[0]);
      if (api && api.code !== 'internal') log[api.entry.log]({ code: api.code, status: api.status }, api.message);
      else log.error({ err: args[0] }, 'graphql error');
    },
  };
}

/** A cookie-authenticated mutation that fails the CSRF check is refused whole, with REST's 403, before anything runs. */
function useCsrfOnMutations(): Plugin<GraphQLContext> {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const ctx = args.contextValue;
      if (!ctx.csrfError) return;
      if (getOperationAST(args.document, args.operationName)?.operation !== 'mutation') return;
      const e = toGraphQLError(ctx.csrfError);
      setResultAndStopExecution({ errors: [new GraphQLError(e.message, { extensions: { ...e.extensions, http: { status: ctx.csrfError.status } } })] });
    },
  };
}

type Who = Pick<GraphQLContext, 'admin' | 'tenant' | 'csrfError'>;

/**
 * Who is asking, before the document is even parsed, so nothing about the schema answers an
 * unauthenticated caller: the admin bearer key, a tenant bearer key, or (no Authorization
 * header) the dashboard session cookie.
 */
async function whoIsAsking(s: Services, req: FastifyRequest): Promise<Who> {
  const sent = bearer(req);
  if (sent && s.adminAuth.check(sent)) return { admin: true, tenant: null, csrfError: null };
  const { principal, viaCookie } = await controlPrincipal(s, req);
  return { admin: false, tenant: principal, csrfError: viaCookie ? csrfErrorOf(req) : null };
}

/** A browser asking for the page (GraphiQL), not an operation. */
function wantsPage(req: FastifyRequest): boolean {
  return req.method === 'GET' && (req.headers.accept ?? '').includes('text/html') && !('query' in ((req.query ?? {}) as object));
}

export function registerGraphQL(app: FastifyInstance, s: Services, set: CapabilityTree = capabilities): void {
  const { schema, tenantSchema } = schemasFor(set);
  const yoga = createYoga<ServerContext, GraphQLContext>({
    // the admin sees the admin's fields; a tenant's introspection shows only the tenant's
    schema: ({ who }) => (who.admin ? schema : tenantSchema),
    graphqlEndpoint: GRAPHQL_PATH,
    // served from the package, not a CDN: the page works on a gateway with no way out
    // with a dashboard session it uses it; opened cold, it says how to authenticate (graphiql-page.ts)
    graphiql: graphiqlPage(s),
    renderGraphiQL,
    landingPage: false,
    cors: false,
    logging: yogaLogger(s.logger),
    maskedErrors: { maskError },
    plugins: [useCsrfOnMutations(), useCatalogueCodes()],
    context: ({ who }) => ({ services: s, ...who }),
  });

  // who is asking is settled as soon as the head is read, before any of the body (http/door-guard.ts)
  const asking = new WeakMap<FastifyRequest, Who>();
  app.route({
    url: GRAPHQL_PATH,
    method: ['GET', 'POST'],
    onRequest: async (req, reply) => {
      if (wantsPage(req)) return;
      try {
        const who = await whoIsAsking(s, req);
        if (who.admin) await s.doors.hit('admin', req.ip);
        asking.set(req, who);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        if (err.code === 'rate_limited') throw err;
        s.logger[err.entry.log]({ code: err.code, status: err.status }, 'graphql: no valid key or session');
        const e = toGraphQLError(err);
        closeIfBodyPending(req, reply);
        return reply
          .status(401)
          .header('www-authenticate', 'Bearer')
          .header('content-type', 'application/graphql-response+json; charset=utf-8')
          .send(JSON.stringify({ errors: [{ message: 'The GraphQL door needs Authorization: Bearer <key> (a tenant key or the admin key) or a dashboard session: sign in at /optimizer/ and this page uses it.', extensions: { ...e.extensions, code: 'UNAUTHENTICATED' } }] }));
      }
    },
    handler: async (req, reply) => {
      const who: Who = asking.get(req) ?? { admin: false, tenant: null, csrfError: null };
      const response = await yoga.handleNodeRequestAndResponse(req, reply, { req, reply, who });
      response.headers.forEach((value, key) => void reply.header(key, value));
      return reply.status(response.status).send(response.body ? Buffer.from(await response.arrayBuffer()) : undefined);
    },
  });
}
