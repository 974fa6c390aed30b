// How an output schema names its parts for the doors that name types. A zod object or enum
// given a name here is a GraphQL object or enum type of that name and an OpenAPI component
// (`#/components/schemas/<name>`); descriptions are zod's own (`.describe()`), read by both.
// A few hints say what GraphQL cannot derive: a number that is a Float though whole (it may
// pass GraphQL's 32-bit Int), a part GraphQL carries as the JSON scalar.
import { z } from 'zod';

/** Output types with a name: what the OpenAPI document lists under components (ids are unique). */
export const components = z.registry<{ id: string }>();

export interface GraphQLHint {
  /** The GraphQL type's name (an object or an enum). */
  name?: string;
  /** The type's description, for a schema shared from @optimizer/schema that has none of its own (one `.describe()` would clone). */
  description?: string;
  /** The scalar GraphQL carries the value as, whatever zod's type. */
  scalar?: 'Float' | 'JSON' | 'String';
  /** GraphQL reads every field of this object as nullable (settings whose null is a default). */
  nullableFields?: true;
}

const hints = new WeakMap<z.ZodType, GraphQLHint>();

/** The schema's own hint (not its wrappers' or the schema it was cloned from). */
export function hintOf(schema: z.ZodType): GraphQLHint | undefined {
  return hints.get(schema);
}

/**
 * Names an output object or enum: a GraphQL type and an OpenAPI component of that name. A
 * description given here is for a schema shared from @optimizer/schema (else `.describe()` it).
 */
export function named<S extends z.ZodType>(name: string, schema: S, description?: string): S {
  hints.set(schema, { ...hints.get(schema), name, ...(description ? { description } : {}) });
  components.add(schema, { id: name });
  return schema;
}

/** GraphQL reads every field of this output object as nullable (a settings topic, whose null is a default). */
export function nullableOnGraphQL<S extends z.ZodType>(schema: S): S {
  hints.set(schema, { ...hints.get(schema), nullableFields: true });
  return schema;
}

/**
 * Names a schema for GraphQL only: an enum of an input that is also an output type's (one name,
 * two zod instances), or a literal that GraphQL takes as that enum (an input allowing one value of it).
 */
export function graphqlName<S extends z.ZodType>(name: string, schema: S, description?: string): S {
  hints.set(schema, { ...hints.get(schema), name, ...(description ? { description } : {}) });
  return schema;
}

/** A whole number GraphQL carries as Float (amounts in micros and per-minute limits outgrow Int). */
export function asFloat<S extends z.ZodType>(schema: S): S {
  hints.set(schema, { ...hints.get(schema), scalar: 'Float' });
  return schema;
}

/** A part GraphQL carries as the JSON scalar in REST's shape (open, or still changing), typed for OpenAPI. */
export function asJson<S extends z.ZodType>(schema: S): S {
  hints.set(schema, { ...hints.get(schema), scalar: 'JSON' });
  return schema;
}

/** A value GraphQL carries as a String (an enum whose values are no GraphQL names). */
export function asString<S extends z.ZodType>(schema: S): S {
  hints.set(schema, { ...hints.get(schema), scalar: 'String' });
  return schema;
}

/** A point in time as the views give it: an ISO 8601 string. */
export const time = () => z.string().meta({ format: 'date-time' });
