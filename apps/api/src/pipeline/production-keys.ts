// A workflow in production runs on the tenant's own provider keys (spec 4.5): stored under
// /v1/settings/provider-keys, or sent for the vendor on the call; never the platform's. The key
// rule itself is in dispatch.ts (`keySource`, `keyFor`); this is the refusal a routed call gets
// when, without the platform's keys, no model is left to route to.
import { ApiError } from '../errors.ts';
import type { PipelineDeps } from './deps.ts';
import type { CallContext } from './context.ts';
import { keyless, productionKeyMissing } from './dispatch.ts';

/** Marks the call as production's when its workflow is in production (a finalized lockfile in force). */
export function markProduction(ctx: CallContext, s: PipelineDeps): void {
  ctx.production = s.workflowLife.inProduction(ctx.principal.accountId, ctx.principal.workflowId);
}

/**
 * Plans a routed call; in production, a plan that finds no model because the tenant holds no key
 * of its own for the vendors that could serve is refused 409 `production_key_required`, naming them.
 */
export function withOwnKeys<T>(ctx: CallContext, s: PipelineDeps, allowed: string[] | undefined, plan: () => T): T {
  try {
    return plan();
  } catch (e) {
    if (!ctx.production || !(e instanceof ApiError) || e.code !== 'provider_unavailable') throw e;
    const lacking = s.providers
      .names()
      .filter((p) => (!allowed || allowed.includes(p)) && !keyless(p) && s.providers.get(p)?.platformKey && !ctx.clientKeys.has(p) && !s.providerKeys.has(ctx.principal.accountId, p));
    throw lacking.length ? productionKeyMissing(ctx, lacking) : e;
  }
}
