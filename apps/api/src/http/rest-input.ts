// A REST request's input for a capability: its path parameters together with the query
// (strings turned into numbers where the schema wants one) or the JSON body, parsed with
// the capability's shared schema, so REST and tRPC take the same input and fail the same way.
// Before any of that, installInputGuard refuses text PostgreSQL cannot store on every route.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { ApiError } from '../errors.ts';
import { numbersFromQuery, parseWith, refuseUnstorable } from '../input/validate.ts';

type Source = 'query' | 'body' | 'params';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function restInput<S extends z.ZodType>(schema: S, request: FastifyRequest, from: Source): z.output<S> {
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries((request.params ?? {}) as Record<string, string>)) params[k] = v;
  let rest: Record<string, unknown> = {};
  if (from === 'query') rest = numbersFromQuery(schema, (request.query ?? {}) as Record<string, unknown>);
  else if (from === 'body') {
    const body = request.body ?? {};
    if (!isObject(body)) throw new ApiError('validation_failed', 'The body must be a JSON object.');
    rest = body;
  }
  const clash = Object.keys(rest).find((k) => k in params);
  if (clash) throw new ApiError('validation_failed', `unknown field ${clash}`, { param: clash });
  return parseWith(schema, { ...rest, ...params });
}

/**
 * Data-plane routes whose bodies may carry any text (message content, a vendor's answer);
 * a capability declared `freeText` is another (its route's config says so);
 * what they keep is made storable where it is kept (see docs/decisions.md). The payment
 * processor's webhook too: its signature authenticates the body, and a signed event whose
 * customer name held such text must still be credited (it keeps only ids and amounts), not
 * refused and retried for days.
 */
const FREE_TEXT_BODIES = new Set(['/v1/chat/completions', '/v1/completions', '/v1/responses', '/v1/embeddings', '/v1/billing/webhook']);
/** Doors that answer in their own shape and check their own inputs (tRPC, GraphQL). */
const OWN_SHAPE = /^\/(trpc|graphql)(\/|$)/;

/**
 * Every route's path and query parameters, and every control-plane body, are refused with
 * 400 `invalid_request` naming the field when they hold a NUL or a lone surrogate: such
 * text cannot be an id, a name, a URL or a setting, and PostgreSQL cannot store it.
 */
export function installInputGuard(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    const route = request.routeOptions.url;
    if (route === undefined || request.is404 || OWN_SHAPE.test(route)) return done();
    try {
      refuseUnstorable(request.params, 'path parameter');
      refuseUnstorable(request.query, 'query parameter');
      if (!FREE_TEXT_BODIES.has(route) && request.routeOptions.config.freeText !== true) refuseUnstorable(request.body, 'body field');
    } catch (err) {
      return done(err as Error);
    }
    done();
  });
}
