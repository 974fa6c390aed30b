// Stage: annotate. Checks what the gateway itself must understand (model, messages,
// stream), reads and validates the `optimizer` annotation, then removes it so the
// vendor receives exactly the client's body without it. Every other field passes
// through untouched, so it is not parsed here.
import { z } from 'zod';
import { optimizerAnnotation } from '@optimizer/schema';
import { ApiError } from '../errors.ts';
import { parseWith } from '../input/validate.ts';
import type { CallContext } from './context.ts';
import { rememberText } from '../wire/serialized.ts';
import { refuseUnstorableName, unstorable, unstorablePath } from '../input/storable.ts';
import { assertModelName } from '../providers/model-id.ts';

/** Wrapped so a failure names the field as the client wrote it: optimizer.run.seq. */
const annotated = z.object({ optimizer: optimizerAnnotation });

function invalid(message: string, param: string): never {
  throw new ApiError('invalid_request', message, { param });
}

/** Checks a string field that names something (an id, a name, a tool): NUL or a lone surrogate is refused. */
function checkName(value: unknown, param: string): void {
  if (typeof value === 'string' && unstorable(value)) refuseUnstorableName(param);
}

/** A tool or function definition, or a call of one: its names and ids. */
function checkToolRef(t: unknown, param: string): void {
  if (!t || typeof t !== 'object') return;
  const { id, type, name, function: fn } = t as Record<string, unknown>;
  checkName(id, `${param}.id`);
  checkName(type, `${param}.type`);
  checkName(name, `${param}.name`);
  if (fn && typeof fn === 'object') checkName((fn as Record<string, unknown>).name, `${param}.function.name`);
}

function eachOf(list: unknown, param: string, check: (item: unknown, param: string) => void): void {
  if (Array.isArray(list)) for (let i = 0; i < list.length; i++) check(list[i], `${param}.${i}`);
}

/**
 * Refuses NUL and lone surrogates (which PostgreSQL cannot store, and the call's record keeps)
 * in every field that names something: the annotation's ids, roles, names, tool names and call
 * ids, the user, metadata keys. Text a message may hold (content, tool arguments, descriptions)
 * passes: the meter stores it with those characters replaced (input/storable.ts).
 */
function refuseUnstorableNames(body: Record<string, unknown>, optimizer: unknown): void {
  const annotated = unstorablePath(optimizer, 'optimizer');
  if (annotated !== null) refuseUnstorableName(annotated);
  eachOf(body.messages, 'messages', (m, param) => {
    const { role, name, tool_call_id, tool_calls, function_call } = m as Record<string, unknown>;
    checkName(role, `${param}.role`);
    checkName(name, `${param}.name`);
    checkName(tool_call_id, `${param}.tool_call_id`);
    eachOf(tool_calls, `${param}.tool_calls`, checkToolRef);
    checkToolRef(function_call, `${param}.function_call`);
  });
  eachOf(body.tools, 'tools', checkToolRef);
  eachOf(body.functions, 'functions', checkToolRef);
  if (typeof body.tool_choice === 'string') checkName(body.tool_choice, 'tool_choice');
  else checkToolRef(body.tool_choice, 'tool_choice');
  if (typeof body.function_call === 'string') checkName(body.function_call, 'function_call');
  else checkToolRef(body.function_call, 'function_call');
  for (const field of ['user', 'safety_identifier', 'prompt_cache_key', 'service_tier', 'reasoning_effort', 'verbosity']) checkName(body[field], field);
  if (body.metadata && typeof body.metadata === 'object') for (const key of Object.keys(body.metadata)) if (unstorable(key)) refuseUnstorableName('metadata');
  const format = body.response_format as { json_schema?: { name?: unknown } } | null | undefined;
  if (format && typeof format === 'object' && format.json_schema && typeof format.json_schema === 'object') checkName(format.json_schema.name, 'response_format.json_schema.name');
}

/** `text` is the body as received, if the server kept it: forwarded as is when there is no annotation to remove. */
export function annotate(ctx: CallContext, raw: unknown, text?: string): void {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) invalid('The body must be a JSON object.', 'body');
  const { optimizer, ...forwarded } = raw as Record<string, unknown>;
  const { model, messages, stream, stream_options } = forwarded;
  if (typeof model !== 'string' || model.length === 0) invalid('model: a model name (or "auto") is required.', 'model');
  assertModelName(model);
  if (!Array.isArray(messages) || messages.length === 0) invalid('messages: at least one message is required.', 'messages');
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as { role?: unknown } | null;
    if (!m || typeof m !== 'object' || typeof m.role !== 'string') invalid(`messages.${i}: each message needs a role.`, `messages.${i}.role`);
  }
  if (stream !== undefined && stream !== null && typeof stream !== 'boolean') invalid('stream must be a boolean.', 'stream');
  if (stream_options !== undefined && stream_options !== null && typeof stream_options !== 'object') invalid('stream_options must be an object.', 'stream_options');
  ctx.annotation = optimizer === undefined ? undefined : parseWith(annotated, { optimizer }, 'invalid_request').optimizer;
  refuseUnstorableNames(forwarded, ctx.annotation);
  ctx.body = forwarded;
  if (optimizer === undefined && text !== undefined) rememberText(forwarded, text);
  ctx.requestedModel = model as string;
  ctx.stream = stream === true;
  ctx.clientWantsUsage = (stream_options as { include_usage?: unknown } | null | undefined)?.include_usage === true;
}
