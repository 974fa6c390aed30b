// Mounts the tRPC door at /trpc on the Fastify app. The tenant is resolved once per request
// (batched calls share it) as on the REST control plane: a bearer key, else the session
// cookie; procedures that need a tenant refuse without one, with the same catalogue error
// REST gives, and a cookie-authenticated mutation must pass the same CSRF check.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import { toApiError } from '../failures/to-api-error.ts';
import { controlPrincipal } from '../http/auth.ts';
import { csrfErrorOf } from '../http/session-cookie.ts';
import type { Services } from '../services.ts';
import { WARNING_HEADER, warningHeaderValue } from '../settings/tier-warnings.ts';
import type { CapabilityTree } from '../capabilities/capability.ts';
import { capabilities } from '../capabilities/index.ts';
import { appRouter, routerFor, type AppRouter, type TrpcContext } from './router.ts';

export const TRPC_PATH = '/trpc';

/** Collects a request's warnings into its `x-optimizer-warning` header. */
function warner(res: FastifyReply): (warnings: string[]) => void {
  const all: string[] = [];
  return (warnings) => {
    all.push(...warnings);
    void res.header(WARNING_HEADER, warningHeaderValue(all));
  };
}

async function contextFor(s: Services, req: FastifyRequest, res: FastifyReply): Promise<TrpcContext> {
  const warn = warner(res);
  try {
    const { principal, viaCookie } = await controlPrincipal(s, req);
    return { services: s, principal, authError: null, csrfError: viaCookie ? csrfErrorOf(req) : null, warn };
  } catch (err) {
    // a refused key, or the store that checks it unreachable (503 `unavailable`, as on REST)
    const api = toApiError(err);
    if (api.code !== 'internal') return { services: s, principal: null, authError: api, csrfError: null, warn };
    throw err;
  }
}

export async function registerTrpc(app: FastifyInstance, s: Services, set: CapabilityTree = capabilities): Promise<void> {
  const options: FastifyTRPCPluginOptions<AppRouter> = {
    prefix: TRPC_PATH,
    trpcOptions: {
      // a set with more capabilities than the gateway's (a test's) gets a router of its own
      router: set === capabilities ? appRouter : routerFor(set),
      createContext: ({ req, res }) => contextFor(s, req, res),
      onError: ({ error, path }) => {
        // a caller's mistake is not the server's: only unexpected failures log as errors
        if (error.code === 'INTERNAL_SERVER_ERROR') s.logger.error({ err: error.cause ?? error, path }, 'trpc procedure failed');
      },
    },
  };
  await app.register(fastifyTRPCPlugin, options);
}
