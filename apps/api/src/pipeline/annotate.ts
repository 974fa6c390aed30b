// Stage: annotate. Reads and validates the `optimizer` annotation, then removes it
// so the vendor receives exactly the client's body without it.
import { completionRequest } from '@optimizer/schema';
import { ApiError } from '../errors.ts';
import { parseWith } from '../http/validate.ts';
import type { CallContext } from './context.ts';

export function annotate(ctx: CallContext, raw: unknown): void {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new ApiError('invalid_request', 'The body must be a JSON object.');
  const parsed = parseWith(completionRequest, raw, 'invalid_request');
  const { optimizer, ...forwarded } = raw as Record<string, unknown>;
  ctx.annotation = optimizer === undefined ? undefined : parsed.optimizer;
  ctx.body = forwarded;
  ctx.requestedModel = parsed.model;
  ctx.stream = parsed.stream === true;
  ctx.clientWantsUsage = parsed.stream_options?.include_usage === true;
}
