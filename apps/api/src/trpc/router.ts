// The tRPC door (design §2): every tenant capability as a procedure (trpc/procedures.ts makes
// them from the capabilities), with its input typed and checked by the capability's shared
// zod schema, so a client gets real types and a mistake reads as on REST: the same catalogue
// errors, carried in tRPC's shape (trpc/init.ts).
import type { CapabilityTree } from '../capabilities/capability.ts';
import { capabilities } from '../capabilities/index.ts';
import { t } from './init.ts';
import { proceduresOf, type ProceduresOf } from './procedures.ts';

export { toTrpcError, type TrpcContext } from './init.ts';

export const appRouter = t.router(proceduresOf(capabilities));

export type AppRouter = typeof appRouter;

/** The router of another set of capabilities (a test's has more than the gateway's; its types are the gateway's). */
export function routerFor(set: CapabilityTree): AppRouter {
  return t.router(proceduresOf(set) as unknown as ProceduresOf<typeof capabilities>);
}
