// Parses a body or query with a wire schema; a failure is a 422 naming the field.
import type { z } from 'zod';
import { ApiError } from '../errors.ts';
import { unstorablePath } from './storable.ts';

export function parseWith<S extends z.ZodType>(schema: S, input: unknown, code: 'validation_failed' | 'invalid_request' = 'validation_failed'): z.infer<S> {
  const r = schema.safeParse(input ?? {});
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const path = issue.path.join('.');
  const field = issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : path;
  const message = issue.code === 'unrecognized_keys' ? `unknown field ${field}` : path ? `${path}: ${issue.message}` : issue.message;
  throw new ApiError(code, message, { param: field || null });
}

/** Whether a field's schema is a number under its optional/default wrappers. */
function isNumber(field: unknown): boolean {
  let cur = field as { def?: { type?: string; innerType?: unknown } } | undefined;
  while (cur?.def?.innerType) cur = cur.def.innerType as typeof cur;
  return cur?.def?.type === 'number';
}

/** A query string's values as numbers where the schema wants a number (left as sent when not numeric, so the message names it). */
export function numbersFromQuery(schema: z.ZodType, query: Record<string, unknown>): Record<string, unknown> {
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape ?? {};
  const out: Record<string, unknown> = { ...query };
  for (const [k, v] of Object.entries(query)) {
    if (typeof v === 'string' && isNumber(shape[k]) && v.trim() !== '') out[k] = Number(v);
  }
  return out;
}

/**
 * Refuses input that holds text PostgreSQL cannot store (NUL, a lone UTF-16 surrogate):
 * 400 `invalid_request` naming the field, before anything is looked up or written.
 * `where` says what the names are (a path parameter, a query parameter, a body field).
 */
export function refuseUnstorable(value: unknown, where = 'field'): void {
  const at = unstorablePath(value);
  if (at === null) return;
  const what = `holds a NUL character or an unpaired UTF-16 surrogate, which cannot be stored`;
  throw new ApiError('invalid_request', at ? `${at}: the ${where} ${what}` : `The ${where} ${what}`, { param: at || null });
}
