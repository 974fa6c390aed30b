// A REST request's input for a capability: its path parameters together with the query
// (strings turned into numbers where the schema wants one) or the JSON body, parsed with
// the capability's shared schema, so REST and tRPC take the same input and fail the same way.
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { ApiError } from '../errors.ts';
import { numbersFromQuery, parseWith } from './validate.ts';

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
