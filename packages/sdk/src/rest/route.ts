// Calls a tenant capability over REST: the route (method, path, where the input's fields go,
// a list answer, the credential) is the server's own, generated from its capability
// definitions (routes.gen.ts), and the input and answer types are the same capability's over
// tRPC (trpc/app-router.gen.ts). The named resources (client.billing, client.connections, …)
// are thin wrappers of this; `client.call(name, input)` reaches any capability by its name.
import { clientCheck } from '../client-checks.ts';
import type { RouterInputs, RouterOutputs } from '../trpc/app-router.gen.ts';
import { seg, type Transport } from '../transport.ts';
import type { RestRoute } from './rest-route.ts';
import { restRoutes } from './routes.gen.ts';

export type { RestRoute } from './rest-route.ts';


/** A capability the REST client reaches, by its tRPC path ("billing.view", "workflow.steps"). */
export type CapabilityName = keyof typeof restRoutes;

/** What a capability takes (nothing for one without input). */
export type CapabilityInput<K extends CapabilityName> = K extends keyof RouterInputs ? RouterInputs[K] : never;

/** What a capability answers over REST: its tRPC answer, or nothing for a 204. */
export type CapabilityOutput<K extends CapabilityName> = (typeof restRoutes)[K]['empty'] extends true ? void : K extends keyof RouterOutputs ? RouterOutputs[K] : never;

/** The arguments of a call: the input, when the capability takes one, then request options. */
export type CapabilityArgs<K extends CapabilityName> = [CapabilityInput<K>] extends [void] ? [input?: undefined, opts?: CallOptions] : [input: CapabilityInput<K>, opts?: CallOptions];

export interface CallOptions {
  signal?: AbortSignal;
  /** Sent with this request only (an Idempotency-Key). */
  headers?: Record<string, string>;
}

type Scalar = string | number | boolean | undefined;

/** The request a capability's input makes: its path fields in the path, the others in the query or the body. */
export function requestOf(route: RestRoute, input: unknown): { path: string; query?: Record<string, Scalar>; body?: unknown } {
  const rest: Record<string, unknown> = { ...((input ?? {}) as Record<string, unknown>) };
  const path = route.path.replace(/:(\w+)/g, (_, name: string) => {
    const v = rest[name];
    if (v === undefined || v === null || v === '') throw new TypeError(`${route.method} ${route.path} needs ${name}`);
    delete rest[name];
    return seg(String(v));
  });
  if (route.from === 'query') return { path, query: Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, v === null ? undefined : (v as Scalar)])) };
  if (route.from === 'body') return { path, body: rest };
  return { path };
}

/** Calls capability `name` over REST with `input`. */
export async function callCapability<K extends CapabilityName>(t: Transport, name: K, ...[input, opts]: CapabilityArgs<K>): Promise<CapabilityOutput<K>> {
  const route: RestRoute = restRoutes[name];
  if (!route) throw new TypeError(`no capability named ${String(name)}`);
  const req = requestOf(route, clientCheck(name, input, `${route.method} ${route.path}`));
  const spec = { method: route.method, path: req.path, auth: route.auth, query: req.query, body: req.body, signal: opts?.signal, headers: opts?.headers };
  if (route.list) return (await t.list(spec)) as CapabilityOutput<K>;
  return (await t.json(spec)) as CapabilityOutput<K>;
}
