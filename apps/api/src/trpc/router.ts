// The tRPC door (design §2): every tenant capability as a procedure (trpc/procedures.ts makes
// them from the capabilities), with its input typed and checked by the capability's shared
// zod schema, so a client gets real types and a mistake reads as on REST: the same catalogue
// errors, carried in tRPC's shape (trpc/init.ts).
import {
  connectionRef,
  createManagedAgentRequest,
  managedActionRef,
  managedAgentRef,
  managedRunRef,
  playgroundRequest,
  putConnectionInput,
  runEventsInput,
  startRunInput,
} from '@optimizer/schema';
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
import type { Tenant } from '../domain/tenant.ts';
import type { z } from 'zod';
import type { Services } from '../services.ts';
import type { CapabilityTree } from '../capabilities/capability.ts';
import { capabilities } from '../capabilities/index.ts';
import { domain, shared, t, tenant } from './init.ts';
import { proceduresOf } from './procedures.ts';

export { toTrpcError, type TrpcContext } from './init.ts';

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

const legacy = {
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
};

const own = proceduresOf(capabilities);

export const appRouter = t.router({ ...own, ...legacy });

/** The procedures of a set of capabilities (a test's set has more than the gateway's). */
export function routerFor(set: CapabilityTree) {
  return t.router({ ...proceduresOf(set), ...legacy });
}

export type AppRouter = typeof appRouter;
