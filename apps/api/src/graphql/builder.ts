// The Pothos schema builder of the GraphQL door. Types and fields register on it from
// catalog.ts and providers.ts; schema.ts turns it into the schema.
import SchemaBuilder from '@pothos/core';
import type { Services } from '../services.ts';

/** Per-request context: the same domain services the REST routes use. Built after the admin check. */
export interface GraphQLContext {
  services: Services;
}

/** Fields are non-null unless marked nullable. */
export const builder = new SchemaBuilder<{ Context: GraphQLContext; DefaultFieldNullability: false }>({ defaultFieldNullability: false });

builder.queryType({ description: 'The platform admin scope: every operation needs Authorization: Bearer <ADMIN_KEY>.' });
builder.mutationType({ description: 'Writes go through the same domain services and schemas as the REST admin API.' });

/**
 * GraphQL inputs are camelCase; the domain services take the wire (REST) shape. This
 * turns top-level camelCase keys into snake_case and drops nulls, so the services'
 * defaults apply to fields a client left out.
 */
export function toWire(input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (v === null || v === undefined) continue;
    out[k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = v;
  }
  return out;
}

/** The GraphQL name of a wire field path (`input_per_mtok` → `inputPerMtok`; `strengths.code` stays). */
export function fromWire(path: string): string {
  return path.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}
