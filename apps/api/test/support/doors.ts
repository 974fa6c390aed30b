// The three doors of the tenant control plane as test clients: REST (fetch), tRPC (the
// official client with AppRouter) and GraphQL (fetch, with selection sets read from the
// schema itself, so a comparison covers every field the door has).
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import { getNamedType, isObjectType, type GraphQLField, type GraphQLObjectType } from 'graphql';
import type { AppRouter } from '../../src/trpc/router.ts';
import { schema } from '../../src/graphql/schema.ts';

export interface Creds {
  key?: string;
  cookie?: string;
  headers?: Record<string, string>;
}

function headersOf(c: Creds): Record<string, string> {
  return { ...(c.key ? { authorization: `Bearer ${c.key}` } : {}), ...(c.cookie ? { cookie: c.cookie } : {}), ...c.headers };
}

export interface RestAnswer {
  status: number;
  body: any;
}

export async function rest(url: string, c: Creds, method: string, path: string, body?: unknown): Promise<RestAnswer> {
  const r = await fetch(`${url}${path}`, {
    method,
    headers: { ...headersOf(c), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}

/** A typed tRPC client; one HTTP request per call (no batching), so each call's status is its own. */
export function trpcClient(url: string, c: Creds) {
  return createTRPCClient<AppRouter>({ links: [httpLink({ url: `${url}/trpc`, headers: () => headersOf(c) })] });
}

export interface GqlAnswer {
  status: number;
  data: any;
  errors?: { message: string; extensions?: { code?: string; apiCode?: string; status?: number; field?: string } }[];
}

export async function gql(url: string, c: Creds, query: string, variables: Record<string, unknown> = {}): Promise<GqlAnswer> {
  const r = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headersOf(c) }, body: JSON.stringify({ query, variables }) });
  const body = (await r.json()) as { data?: unknown; errors?: GqlAnswer['errors'] };
  return { status: r.status, data: body.data ?? null, ...(body.errors ? { errors: body.errors } : {}) };
}

/** Every field of a GraphQL object type, nested objects included: the selection that reads all of it. */
export function allFields(typeName: string): string {
  const type = schema.getType(typeName) as GraphQLObjectType;
  const walk = (t: GraphQLObjectType): string =>
    Object.values(t.getFields())
      .map((f: GraphQLField<unknown, unknown>) => {
        const named = getNamedType(f.type);
        return isObjectType(named) ? `${f.name} { ${walk(named)} }` : f.name;
      })
      .join(' ');
  return walk(type);
}

/** The return type's name of a root field, for allFields. */
export function returnType(root: 'Query' | 'Mutation', field: string): string {
  const t = root === 'Query' ? schema.getQueryType()! : schema.getMutationType()!;
  return getNamedType(t.getFields()[field]!.type).name;
}

/** A query or mutation on one root field selecting all of its return type. */
export function operation(root: 'Query' | 'Mutation', field: string, args: Record<string, string> = {}): string {
  const defs = Object.entries(args).map(([k, type]) => `$${k}: ${type}`);
  const pass = Object.keys(args).map((k) => `${k}: $${k}`);
  const named = getNamedType((root === 'Query' ? schema.getQueryType()! : schema.getMutationType()!).getFields()[field]!.type);
  const selection = isObjectType(named) ? ` { ${allFields(named.name)} }` : '';
  return `${root === 'Query' ? 'query' : 'mutation'}${defs.length ? `(${defs.join(', ')})` : ''} { ${field}${pass.length ? `(${pass.join(', ')})` : ''}${selection} }`;
}

/** GraphQL's camelCase keys as REST's snake_case, at every depth (JSON fields already are). */
export function snake(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(snake);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snake(x)]));
}

/** Drops null and undefined values at every depth: GraphQL says null where REST leaves a setting out. */
export function compact(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(compact);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([, x]) => x !== null && x !== undefined)
      .map(([k, x]) => [k, compact(x)]),
  );
}

/** The tRPC failure a call ended in (it must fail). */
export async function trpcFailure(p: Promise<unknown>): Promise<TRPCClientError<AppRouter>> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof TRPCClientError)) throw new Error(`expected a tRPC error, got ${JSON.stringify(err)}`);
  return err as TRPCClientError<AppRouter>;
}
