// The REST door of the capabilities: one Fastify route each, made from its definition. The
// route authenticates as the definition says, reads the input from its path parameters and its
// query or JSON body (http/rest-input.ts, so REST and the other doors parse alike), calls the
// domain function, and answers in the control plane's shapes: `{ data: [...] }` for a list,
// the definition's status (204 with no body), `Cache-Control: no-store` where it holds a secret.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { adminAuth, controlAuth, principalOf } from '../http/auth.ts';
import { restInput } from '../http/rest-input.ts';
import type { Services } from '../services.ts';
import { WARNING_HEADER, warningHeaderValue } from '../settings/tier-warnings.ts';
import { capabilityList, restSource, type AnyCapability, type CapabilityTree } from './capability.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's body may hold any text (a capability declared `freeText`): http/rest-input.ts's guard leaves it to the domain. */
    freeText?: boolean;
  }
}

function handler(s: Services, cap: AnyCapability) {
  const rest = cap.rest!;
  const from = restSource(cap);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const caller = cap.auth === 'control' ? principalOf(request) : null;
    const input = cap.input && from ? restInput(cap.input, request, from) : undefined;
    const answer = await cap.run(s, caller, input);
    const out = cap.present ? cap.present(answer) : answer;
    const status = typeof rest.status === 'function' ? rest.status(answer) : (rest.status ?? 200);
    if (rest.noStore) void reply.header('cache-control', 'no-store');
    const warnings = cap.warnings?.(answer) ?? [];
    if (warnings.length) void reply.header(WARNING_HEADER, warningHeaderValue(warnings));
    if (status === 204) return reply.status(204).send();
    return reply.status(status).send(rest.list ? { data: out } : out);
  };
}

/** Registers a route for every capability of the set that has a REST door. */
export function registerCapabilityRoutes(app: FastifyInstance, s: Services, set: CapabilityTree): void {
  const control = controlAuth(s);
  const admin = adminAuth(s.adminAuth);
  for (const { cap } of capabilityList(set)) {
    if (!cap.rest) continue;
    const onRequest = cap.auth === 'control' ? control : cap.auth === 'admin' ? admin : undefined;
    app.route({
      method: cap.rest.method.toUpperCase() as 'GET',
      url: cap.rest.path,
      ...(onRequest ? { onRequest } : {}),
      config: { freeText: cap.freeText === true },
      handler: handler(s, cap),
    });
  }
}
