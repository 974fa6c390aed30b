// The tRPC door of the capabilities: a procedure each (a query for reads, a mutation for
// writes), named by the capability's place in the set (`calls.list`). Its input is the
// capability's shared schema, checked by parseWith so a mistake reads as on REST; its answer
// is the domain function's, so a client's types are the domain's. The platform admin's
// capabilities are not on this door: tRPC is the tenant's (docs/decisions.md, "Capabilities").
import type { TRPCMutationProcedure, TRPCQueryProcedure } from '@trpc/server';
import type { z } from 'zod';
import { isCapability, type AnyCapability, type Capability, type CapabilityTree } from '../capabilities/capability.ts';
import { domain, open, shared, tenant, type TrpcContext } from './init.ts';

type InputOf<I> = I extends z.ZodType ? z.input<I> : void;
type Types<I, R> = { input: InputOf<I>; output: Awaited<R>; meta: object };

/** The procedure a capability becomes, as tRPC would infer it from the procedure built below. */
export type ProcedureOf<C> = C extends Capability<infer I, any, any, infer K, infer P> ? (K extends 'mutation' ? TRPCMutationProcedure<Types<I, P>> : TRPCQueryProcedure<Types<I, P>>) : never;

/** A set of capabilities as tRPC's nested record of procedures. */
export type ProceduresOf<T> = { [K in keyof T]: T[K] extends AnyCapability ? ProcedureOf<T[K]> : ProceduresOf<T[K]> };

function procedureOf(cap: AnyCapability) {
  const base = cap.auth === 'none' ? open : tenant;
  const run = ({ ctx, input }: { ctx: TrpcContext; input: unknown }) =>
    domain(async () => {
      const answer = await cap.run(ctx.services, cap.auth === 'control' ? ctx.principal : null, input);
      const warnings = cap.warnings?.(answer) ?? [];
      if (warnings.length) ctx.warn(warnings);
      return cap.present ? cap.present(answer) : answer;
    });
  const built = cap.input ? base.input(shared(cap.input as z.ZodType, cap.freeText === true)) : base;
  return cap.kind === 'mutation' ? built.mutation(run) : built.query(run);
}

/** The set's procedures, nested as the set is (tRPC's router takes nested records). */
export function proceduresOf<T extends CapabilityTree>(set: T): ProceduresOf<T> {
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(set)) {
    if (!isCapability(v)) out[name] = proceduresOf(v);
    else if (v.auth !== 'admin') out[name] = procedureOf(v);
  }
  return out as ProceduresOf<T>;
}
