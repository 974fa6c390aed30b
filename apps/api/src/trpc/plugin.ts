// Mounts the tRPC door at /trpc on the Fastify app. The tenant's bearer key is resolved
// once per request (batched calls share it); procedures that need a tenant refuse without
// one, with the same catalogue error REST gives.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import { ApiError } from '../errors.ts';
import { tenantOf } from '../http/auth.ts';
import type { Services } from '../services.ts';
import { appRouter, type AppRouter, type TrpcContext } from './router.ts';

export const TRPC_PATH = '/trpc';

async function contextFor(s: Services, req: FastifyRequest): Promise<TrpcContext> {
  try {
    return { services: s, principal: await tenantOf(s.keys, req), authError: null };
  } catch (err) {
    if (err instanceof ApiError) return { services: s, principal: null, authError: err };
    throw err;
  }
}

export async function registerTrpc(app: FastifyInstance, s: Services): Promise<void> {
  const options: FastifyTRPCPluginOptions<AppRouter> = {
    prefix: TRPC_PATH,
    trpcOptions: {
      router: appRouter,
      createContext: ({ req }) => contextFor(s, req),
      onError: ({ error, path }) => {
        // a caller's mistake is not the server's: only unexpected failures log as errors
        if (error.code === 'INTERNAL_SERVER_ERROR') s.logger.error({ err: error.cause ?? error, path }, 'trpc procedure failed');
      },
    },
  };
  await app.register(fastifyTRPCPlugin, options);
}
