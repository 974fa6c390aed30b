// Stage: annotate. Checks what the gateway itself must understand (model, messages,
// stream), reads and validates the `optimizer` annotation, then removes it so the
// vendor receives exactly the client's body without it. Every other field passes
// through untouched, so it is not parsed here.
import { z } from 'zod';
import { optimizerAnnotation } from '@optimizer/schema';
import { ApiError } from '../errors.ts';
import { parseWith } from '../http/validate.ts';
import type { CallContext } from './context.ts';
import { rememberText } from '../wire/serialized.ts';

/** Wrapped so a failure names the field as the client wrote it: optimizer.run.seq. */
const annotated = z.object({ optimizer: optimizerAnnotation });

/** A model name is printable ASCII: it is echoed in a response header, where CR, LF, NUL or a non-Latin-1 character would fail or split it. */
const NOT_PRINTABLE_ASCII = /[^\x20-\x7e]/;

function invalid(message: string, param: string): never {
  throw new ApiError('invalid_request', message, { param });
}

/** `text` is the body as received, if the server kept it: forwarded as is when there is no annotation to remove. */
export function annotate(ctx: CallContext, raw: unknown, text?: string): void {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) invalid('The body must be a JSON object.', 'body');
  const { optimizer, ...forwarded } = raw as Record<string, unknown>;
  const { model, messages, stream, stream_options } = forwarded;
  if (typeof model !== 'string' || model.length === 0) invalid('model: a model name (or "auto") is required.', 'model');
  if (NOT_PRINTABLE_ASCII.test(model)) invalid('model: a model name is printable ASCII (no CR, LF, NUL or other control or non-ASCII characters).', 'model');
  if (!Array.isArray(messages) || messages.length === 0) invalid('messages: at least one message is required.', 'messages');
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as { role?: unknown } | null;
    if (!m || typeof m !== 'object' || typeof m.role !== 'string') invalid(`messages.${i}: each message needs a role.`, `messages.${i}.role`);
  }
  if (stream !== undefined && stream !== null && typeof stream !== 'boolean') invalid('stream must be a boolean.', 'stream');
  if (stream_options !== undefined && stream_options !== null && typeof stream_options !== 'object') invalid('stream_options must be an object.', 'stream_options');
  ctx.annotation = optimizer === undefined ? undefined : parseWith(annotated, { optimizer }, 'invalid_request').optimizer;
  ctx.body = forwarded;
  if (optimizer === undefined && text !== undefined) rememberText(forwarded, text);
  ctx.requestedModel = model as string;
  ctx.stream = stream === true;
  ctx.clientWantsUsage = (stream_options as { include_usage?: unknown } | null | undefined)?.include_usage === true;
}
