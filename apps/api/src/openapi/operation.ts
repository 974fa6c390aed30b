// One operation of the OpenAPI document, and how it is written out: its parameters and body
// from the input's zod schema (path parameters split off by name, as http/rest-input.ts
// merges them in), its answers (the success one, and the error catalogue's codes grouped by
// status, each pointing at the one error envelope), its security and its id.
import { z } from 'zod';
import type { Tag } from '../capabilities/capability.ts';
import { errorCatalogue, type ErrorCode } from '../errors.ts';
import { json, outputJson, ref, str, type JsonSchema } from './json.ts';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Who may call: `tenant` a tenant's bearer key only (the data plane), `control` a bearer key
 * or the dashboard's session cookie (writes by cookie pass the CSRF check), `admin` the
 * admin key, `stripe` Stripe's signature header, `none` anyone.
 */
export type Auth = 'none' | 'tenant' | 'control' | 'admin' | 'stripe';

export interface Success {
  status: number;
  description: string;
  /** A zod schema (its output side is documented) or a JSON Schema; absent: no body (204) or a described body. */
  schema?: z.ZodType | JsonSchema;
  /** `text` for text/plain, `stream` adds text/event-stream beside JSON, `events` text/event-stream alone, `none` for an empty body. */
  content?: 'json' | 'text' | 'stream' | 'events' | 'none';
  headers?: Record<string, { description: string; schema: JsonSchema }>;
}

/** Another answer than the success one with its own body (e.g. /readyz's 503). */
export interface Alternative {
  status: number;
  description: string;
  schema: JsonSchema;
}

export interface Operation {
  method: Method;
  /** As Fastify registers it: `:name` segments are path parameters. */
  path: string;
  tag: Tag;
  summary: string;
  description?: string;
  auth: Auth;
  /**
   * The zod schema the handler parses and where from: path parameters are taken out by
   * name (as http/rest-input.ts merges them in), what is left is the query or the body.
   * `params` alone: a schema of the path parameters only.
   */
  input?: { schema: z.ZodType; from: 'query' | 'body' | 'params'; bodyError?: 'validation_failed' | 'invalid_request' };
  /** Header parameters the route reads. */
  headers?: { name: string; description: string; schema: JsonSchema; required?: boolean }[];
  ok: Success;
  also?: Alternative[];
  /** Errors beyond what the auth, the input and the server add on their own. */
  errors?: ErrorCode[];
}

/** The errors a route can answer with beyond its own list: from its auth, its input, and the server. */
export function errorsOf(op: Operation): ErrorCode[] {
  const codes = new Set<ErrorCode>(op.errors ?? []);
  const write = op.method !== 'get';
  if (op.auth === 'tenant' || op.auth === 'control') ['missing_api_key', 'invalid_api_key'].forEach((c) => codes.add(c as ErrorCode));
  if (op.auth === 'control' && write) codes.add('csrf_rejected');
  if (op.auth === 'admin') codes.add('invalid_admin_key');
  // wrong keys from one address, and the admin routes, are limited per client address (limits/door-throttle.ts)
  if (op.auth === 'tenant' || op.auth === 'control' || op.auth === 'admin') codes.add('rate_limited');
  if (op.input?.from === 'body') ['invalid_json', 'unsupported_media_type', 'payload_too_large'].forEach((c) => codes.add(c as ErrorCode));
  if (op.input) codes.add(op.input.bodyError ?? 'validation_failed');
  else if (/:\w+/.test(op.path)) codes.add('validation_failed');
  codes.add('internal');
  codes.add('unavailable');
  return [...codes];
}

const isZod = (s: unknown): s is z.ZodType => s instanceof z.ZodType;

export function responsesOf(op: Operation): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const { ok } = op;
  const schema = ok.schema === undefined ? undefined : isZod(ok.schema) ? outputJson(ok.schema) : ok.schema;
  const content =
    ok.content === 'none'
      ? undefined
      : ok.content === 'text'
        ? { 'text/plain': { schema: str } }
        : ok.content === 'events'
          ? { 'text/event-stream': { schema: { type: 'string', description: ok.description } } }
          : {
            'application/json': { schema: schema ?? { type: 'object' } },
            ...(ok.content === 'stream' ? { 'text/event-stream': { schema: { type: 'string', description: 'Server-sent events of chat.completion.chunk objects; the last carries the optimizer block, then `data: [DONE]`.' } } } : {}),
          };
  out[String(ok.status)] = { description: ok.description, ...(ok.headers ? { headers: ok.headers } : {}), ...(content ? { content } : {}) };
  for (const alt of op.also ?? []) out[String(alt.status)] = { description: alt.description, content: { 'application/json': { schema: alt.schema } } };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorsOf(op)) {
    const status = errorCatalogue[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    if (String(status) in out) continue;
    const sorted = codes.sort();
    const retry = status === 429 || status === 503 ? { headers: { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } } } } : {};
    out[String(status)] = {
      description: `The error envelope; \`code\`: ${sorted.map((c) => `\`${c}\``).join(', ')} (see docs/errors.md).`,
      ...retry,
      content: { 'application/json': { schema: ref('Error') } },
    };
  }
  return out;
}

export function securityOf(auth: Auth): Record<string, string[]>[] {
  switch (auth) {
    case 'none':
      return [];
    case 'tenant':
      return [{ tenantKey: [] }];
    case 'control':
      return [{ tenantKey: [] }, { session: [] }];
    case 'admin':
      return [{ adminKey: [] }];
    case 'stripe':
      return [{ stripeSignature: [] }];
  }
}

/** `/v1/workflows/:id/steps` → `/v1/workflows/{id}/steps` */
export function openApiPath(fastifyPath: string): string {
  return fastifyPath.replace(/:(\w+)/g, '{$1}');
}

/** `post /v1/workflows/:id/report/finalize` → `postWorkflowsByIdReportFinalize` */
export function operationId(op: Operation): string {
  const words = op.path
    .replace(/^\/v1\//, '/')
    .split('/')
    .filter(Boolean)
    .flatMap((seg) => (seg.startsWith(':') ? ['by', ...seg.slice(1).split('_')] : seg.split(/[-_.]/)));
  return op.method + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

export function parametersOf(op: Operation): { parameters: unknown[]; body?: JsonSchema } {
  const names = [...op.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  const input = op.input ? json(op.input.schema, 'input') : { type: 'object', properties: {} };
  const props = { ...((input.properties as Record<string, JsonSchema> | undefined) ?? {}) };
  const required = new Set((input.required as string[] | undefined) ?? []);
  const parameters: unknown[] = names.map((name) => ({ name, in: 'path', required: true, schema: props[name] ?? { type: 'string', minLength: 1 } }));
  for (const name of names) {
    delete props[name];
    required.delete(name);
  }
  for (const h of op.headers ?? []) parameters.push({ name: h.name, in: 'header', required: h.required ?? false, description: h.description, schema: h.schema });
  if (op.input?.from === 'query') {
    for (const [name, schema] of Object.entries(props)) parameters.push({ name, in: 'query', required: required.has(name), schema });
  }
  if (op.input?.from !== 'body') return { parameters };
  const body: JsonSchema = { ...input, properties: props };
  if (required.size > 0) body.required = [...required];
  else delete body.required;
  return { parameters, body };
}
