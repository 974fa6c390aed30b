// Mounts the GraphQL door at /graphql on the Fastify app (graphql-yoga). Admin scope:
// every operation needs the admin bearer, checked before the request is even parsed,
// so nothing about the schema answers an unauthenticated caller. Domain failures
// (ApiError) become GraphQL errors with a stable extensions.code and the field.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError } from 'graphql';
import { createYoga, maskError as defaultMaskError, type Plugin, type YogaLogger } from 'graphql-yoga';
import { ApiError, type ErrorCode } from '../errors.ts';
import { isDependencyDown } from '../http/dependency-down.ts';
import type { Logger } from '../logger.ts';
import type { Services } from '../services.ts';
import { fromWire, type GraphQLContext } from './builder.ts';
import { schema } from './schema.ts';

export const GRAPHQL_PATH = '/graphql';

interface ServerContext {
  req: FastifyRequest;
  reply: FastifyReply;
}

const codes: Partial<Record<ErrorCode, string>> = {
  validation_failed: 'BAD_USER_INPUT',
  invalid_request: 'BAD_USER_INPUT',
  invalid_json: 'BAD_USER_INPUT',
  invalid_admin_key: 'UNAUTHENTICATED',
  forbidden: 'FORBIDDEN',
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
    extensions: { code: codes[e.code] ?? e.code.toUpperCase(), ...(field ? { field } : {}), status: e.status },
  });
}

function maskError(error: unknown, message: string, isDev?: boolean): Error {
  const api = apiErrorOf(error) ?? (isDependencyDown(error) ? new ApiError('unavailable') : null);
  if (api && api.code !== 'internal') return toGraphQLError(api, error instanceof GraphQLError ? error : undefined);
  return defaultMaskError(error, message, isDev);
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

function useAdminOnly(s: Services): Plugin<GraphQLContext> {
  return {
    onRequestParse({ request }) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '');
      if (m && s.adminAuth.check(m[1]!)) return;
      s.logger.warn({ code: 'invalid_admin_key', status: 401 }, 'graphql: missing or invalid admin key');
      throw new GraphQLError('The GraphQL door needs Authorization: Bearer <ADMIN_KEY>.', {
        extensions: { code: 'UNAUTHENTICATED', http: { status: 401, headers: { 'www-authenticate': 'Bearer' } } },
      });
    },
  };
}

export function registerGraphQL(app: FastifyInstance, s: Services): void {
  const yoga = createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    graphiql: false,
    landingPage: false,
    cors: false,
    logging: yogaLogger(s.logger),
    maskedErrors: { maskError },
    plugins: [useAdminOnly(s)],
    context: () => ({ services: s }),
  });

  app.route({
    url: GRAPHQL_PATH,
    method: ['GET', 'POST'],
    handler: async (req, reply) => {
      const response = await yoga.handleNodeRequestAndResponse(req, reply, { req, reply });
      response.headers.forEach((value, key) => void reply.header(key, value));
      return reply.status(response.status).send(response.body ? Buffer.from(await response.arrayBuffer()) : undefined);
    },
  });
}
