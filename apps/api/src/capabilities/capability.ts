// A capability of the control plane, declared once: its input and output schemas, who may call
// it, the domain function that answers it, and how each door names it. The REST routes
// (capabilities/rest.ts), the tRPC procedures (trpc/procedures.ts), the GraphQL fields
// (graphql/capabilities.ts) and the OpenAPI operations (openapi/capabilities.ts) are made from
// a set of these; none of the doors holds a rule of its own (docs/decisions.md, "Capabilities").
import type { z } from 'zod';
import type { Tenant } from '../domain/tenant.ts';
import type { ErrorCode } from '../errors.ts';
import type { Services } from '../services.ts';

/**
 * Who may call: `control` a tenant's bearer key or the dashboard's session cookie (a cookie's
 * writes pass the CSRF check), `admin` the platform admin's key, `none` anyone (a door that
 * needs a credential of its own, GraphQL's, still asks for one).
 */
export type Auth = 'control' | 'admin' | 'none';

/** What the domain function is called with as the caller: the tenant asking, or null where there is none. */
export type CallerOf<A extends Auth> = A extends 'control' ? Tenant : null;

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The OpenAPI tag an operation is listed under (openapi/document.ts describes each). */
export type Tag = 'Gateway' | 'Calls and savings' | 'Workflows' | 'Agents' | 'Settings' | 'Alerts' | 'Managed agents' | 'Billing' | 'Discovery' | 'Accounts' | 'Admin' | 'Operations';

export interface RestDoor<R = any> {
  method: Method;
  /** As Fastify registers it: `:name` segments are path parameters, merged into the input by name. */
  path: string;
  /**
   * Where the input's fields come from besides the path: the query string, the JSON body, or
   * nothing (every field is a path parameter). Left out: `params` when every field of the
   * input is a path parameter, else `query` for GET and DELETE and `body` for the others.
   */
  from?: 'query' | 'body' | 'params';
  /** The success status (default 200), or the status the domain's answer calls for (201 when it made what it was asked to store); 204 answers no body. */
  status?: number | ((answer: R) => number);
  /** The statuses a status function answers, for the document (the first is the success it lists first). */
  statuses?: number[];
  /** The answer is a list, sent as `{ data: [...] }` (the control plane's list shape). */
  list?: true;
  /** `Cache-Control: no-store`: the answer holds a secret shown only once, or money. */
  noStore?: true;
  /** What the success answer is, for the OpenAPI document. */
  answer: string;
  summary: string;
  description?: string;
  tag: Tag;
  /** Errors beyond what the auth, the input and the server add on their own (for the document). */
  errors?: ErrorCode[];
}

/** A nested input object of a GraphQL field: the input type's name, and its description. */
export type GraphQLInputName = string | { name: string; description?: string };

export interface GraphQLDoor {
  /** The root field's name (a query for reads, a mutation for writes). */
  name: string;
  description?: string;
  /**
   * The input as one argument of an input object type (`setRoutingSettings(input: RoutingSettingsInput!)`),
   * whose nulls are kept (a settings write: null returns a field to its default). Left out, each
   * field of the input is an argument of its own, camelCased.
   */
  inputArg?: { arg: string } & Exclude<GraphQLInputName, string>;
  /** Names of the nested input object types, by the wire path of the field (`exploration`, `signals`). */
  inputTypes?: Record<string, GraphQLInputName>;
  /** Descriptions of input fields, by wire path (`ladders`, `signals.score`). */
  inputDescriptions?: Record<string, string>;
  /** Every number of the input is a GraphQL Float (a token limit may pass GraphQL's 32-bit Int). */
  floats?: true;
  /**
   * The capability is also a field of another GraphQL type (`ManagedAgent.runs`), its input
   * taken from the object it is read on.
   */
  alsoOn?: { type: string; field: string; description?: string; input: (parent: any) => unknown };
  /** An answer GraphQL shapes its own way: the schema of that shape and the function that makes it from the domain's answer. */
  shape?: { schema: z.ZodType; present: (answer: any) => unknown };
}

export interface CapabilityDef<I extends z.ZodType | undefined, R, A extends Auth, P = R> {
  auth: A;
  /** The input (path parameters, query and body together), one shared schema; left out: none. */
  input?: I;
  /** What the domain function answers, as REST sends it (a list's rows, not the `{data}` wrapper). */
  output: z.ZodType;
  /** `query` for reads (GET) and `mutation` for writes; left out, it follows the REST method. */
  kind?: Kind;
  /** The domain function. */
  run: (s: Services, caller: CallerOf<A>, input: I extends z.ZodType ? z.output<I> : undefined) => R | Promise<R>;
  /**
   * What the answer warns of: something stored as asked that the caller may not mean (a ladder
   * under a key that is no routing tier). REST and tRPC send them in the `x-optimizer-warning`
   * header; the answer itself is the same with or without them.
   */
  warnings?: (answer: R) => string[];
  /** What every door answers, from the domain's answer (left out: the answer itself); REST's status may still read the answer. */
  present?: (answer: R) => P;
  rest: RestDoor<R> | null;
  graphql: GraphQLDoor | null;
  /**
   * The input may hold any text: the unstorable-text check every other input gets at the door
   * is left to the domain function, which makes it with the same words on every door.
   */
  freeText?: true;
}

const CAPABILITY = Symbol('capability');

export type Kind = 'query' | 'mutation';

export interface Capability<I extends z.ZodType | undefined = z.ZodType | undefined, R = unknown, A extends Auth = Auth, K extends Kind = Kind, P = R> extends CapabilityDef<I, R, A, P> {
  readonly [CAPABILITY]: true;
  readonly kind: K;
}

export type AnyCapability = Capability<any, any, any, any, any>;

/** The kind a definition declares, or the one its REST method implies (GET: a query). */
type KindOf<K extends Kind, M extends Method> = [K] extends [never] ? (M extends 'get' ? 'query' : 'mutation') : K;

/** A set of capabilities: nested by name, as the tRPC procedures are (`calls.list`, `settings.routing`). */
export interface CapabilityTree {
  [name: string]: AnyCapability | CapabilityTree;
}

/** Declares a capability (the types of its input, answer and caller follow from the definition). */
export function capability<I extends z.ZodType | undefined = undefined, R = unknown, A extends Auth = 'control', K extends Kind = never, M extends Method = never, P = R>(
  def: CapabilityDef<I, R, A, P> & { kind?: K; rest: (RestDoor<R> & { method: M }) | null },
): Capability<I, R, A, KindOf<K, M>, P> {
  if (!def.kind && !def.rest) throw new Error('a capability without a REST door declares its kind');
  const kind = (def.kind ?? (def.rest!.method === 'get' ? 'query' : 'mutation')) as KindOf<K, M>;
  return { ...def, kind, [CAPABILITY]: true };
}

export function isCapability(v: unknown): v is AnyCapability {
  return typeof v === 'object' && v !== null && CAPABILITY in v;
}

/** Every capability of a set with its dotted name, in the set's order. */
export function capabilityList(tree: CapabilityTree, prefix: string[] = []): { name: string; path: string[]; cap: AnyCapability }[] {
  return Object.entries(tree).flatMap(([k, v]) => (isCapability(v) ? [{ name: [...prefix, k].join('.'), path: [...prefix, k], cap: v }] : capabilityList(v, [...prefix, k])));
}

/** A set with more capabilities added (a test's, or an extension's); a name already taken is refused. */
export function withCapabilities(base: CapabilityTree, more: CapabilityTree): CapabilityTree {
  const out: CapabilityTree = { ...base };
  for (const [k, v] of Object.entries(more)) {
    const have = out[k];
    if (have === undefined) out[k] = v;
    else if (!isCapability(have) && !isCapability(v)) out[k] = withCapabilities(have, v);
    else throw new Error(`capability ${k} is declared twice`);
  }
  return out;
}

/** The path parameters of a REST path (`/v1/workflows/:id/steps/:fingerprint` → id, fingerprint). */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
}

/** The fields of an object schema (none for another schema). */
export function fieldsOf(schema: z.ZodType | undefined): string[] {
  const shape = (schema as unknown as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
}

/** Where a REST door reads the input from (see RestDoor.from). */
export function restSource(cap: AnyCapability): 'query' | 'body' | 'params' | null {
  const rest = cap.rest;
  if (!rest || !cap.input) return null;
  if (rest.from) return rest.from;
  const params = new Set(pathParams(rest.path));
  if (fieldsOf(cap.input).every((f) => params.has(f))) return 'params';
  return rest.method === 'get' || rest.method === 'delete' ? 'query' : 'body';
}
