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
