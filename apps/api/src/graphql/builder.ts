// The Pothos schema builder of the GraphQL door, made anew for each schema: types and fields
// register on it from catalog.ts and providers.ts (the platform admin's) and from the
// capabilities (graphql/capabilities.ts); schema.ts turns it into the schema.
import SchemaBuilder from '@pothos/core';
import type { Tenant } from '../domain/tenant.ts';
import { ApiError } from '../errors.ts';
import type { Services } from '../services.ts';

/** Per-request context: who is asking (checked before the document is parsed) and the services. */
export interface GraphQLContext {
  services: Services;
  /** The platform admin's bearer key was sent. */
  admin: boolean;
  /** The tenant the bearer key or the session cookie names. */
  tenant: Tenant | null;
  /** For a cookie-authenticated request that fails the CSRF check: the error its mutations answer. */
  csrfError: ApiError | null;
}

/** A new schema builder with the root types and the JSON scalar; fields are non-null unless marked nullable. */
export function createBuilder() {
  const builder = new SchemaBuilder<{
    Context: GraphQLContext;
    DefaultFieldNullability: false;
    Scalars: { JSON: { Input: unknown; Output: unknown } };
  }>({ defaultFieldNullability: false });
  builder.queryType({
    description: 'Tenant fields need a tenant key (Authorization: Bearer sk-opt-...) or a dashboard session; admin fields need Authorization: Bearer <ADMIN_KEY>.',
  });
  builder.mutationType({ description: 'Writes go through the same domain services and schemas as REST. A cookie-authenticated mutation must pass the CSRF check.' });
  builder.scalarType('JSON', {
    description: 'A JSON value, with the keys the REST door gives it (snake_case): parts whose shape is open or still changing.',
    serialize: (v) => v,
    parseValue: (v) => v,
  });
  return builder;
}

export type Builder = ReturnType<typeof createBuilder>;

/** Marks a root field as the platform admin's: the schema a tenant is served leaves it out (schema.ts). */
export const ADMIN_FIELD = { admin: true } as const;

/** The services, for the platform admin only (UNAUTHENTICATED otherwise). */
export function adminServices(ctx: GraphQLContext): Services {
  if (!ctx.admin) throw new ApiError('invalid_admin_key');
  return ctx.services;
}

/** The tenant asking, or UNAUTHENTICATED. */
export function requireTenant(ctx: GraphQLContext): Tenant {
  if (!ctx.tenant) throw new ApiError('missing_api_key');
  return ctx.tenant;
}

/**
 * GraphQL inputs are camelCase; the domain services take the wire (REST) shape. This
 * turns top-level camelCase keys into snake_case and drops nulls, so the services'
 * defaults apply to fields a client left out.
 */
export function toWire(input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (v === null || v === undefined) continue;
    out[snake(k)] = v;
  }
  return out;
}

const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The GraphQL name of a wire field path (`input_per_mtok` → `inputPerMtok`; `strengths.code` stays). */
export function fromWire(path: string): string {
  return path.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}
