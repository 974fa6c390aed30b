// Parses a body or query with a wire schema; a failure is a 422 naming the field.
import type { z } from 'zod';
import { ApiError } from '../errors.ts';

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

/** Whether PostgreSQL can store this text: `text` and `jsonb` hold no NUL, and UTF-8 has no lone surrogate. */
export function storable(s: string): boolean {
  return !s.includes('\u0000') && s.isWellFormed();
}

/**
 * Where the first string (or object key) under `value` that PostgreSQL cannot store sits:
 * its field path (`url`, `ladders.premium.0`; a bad key is named by its parent's path, or
 * by itself made printable at the top), or null when every string is storable.
 */
export function unstorableField(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return storable(value) ? null : path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const at = unstorableField(value[i], path ? `${path}.${i}` : String(i));
      if (at !== null) return at;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (!storable(k)) return path || printable(k);
      const at = unstorableField(v, path ? `${path}.${k}` : k);
      if (at !== null) return at;
    }
  }
  return null;
}

/** A name with NUL and lone surrogates shown as U+FFFD, so it can be echoed back. */
function printable(s: string): string {
  return s.toWellFormed().replaceAll('\u0000', '\uFFFD');
}

/**
 * Refuses input that holds text PostgreSQL cannot store (NUL, a lone UTF-16 surrogate):
 * 400 `invalid_request` naming the field, before anything is looked up or written.
 * `where` says what the names are (a path parameter, a query parameter, a body field).
 */
export function refuseUnstorable(value: unknown, where = 'field'): void {
  const at = unstorableField(value);
  if (at === null) return;
  const what = `holds a NUL character or an unpaired UTF-16 surrogate, which cannot be stored`;
  throw new ApiError('invalid_request', at ? `${at}: the ${where} ${what}` : `The ${where} ${what}`, { param: at || null });
}
