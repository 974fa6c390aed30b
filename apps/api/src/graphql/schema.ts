// The GraphQL door's schema: every type registered on the builder, printed to
// packages/schema/schema.graphql by print-schema.ts for the web app's codegen.
import { printSchema } from 'graphql';
import { builder } from './builder.ts';
import './catalog.ts';
import './providers.ts';

/** In registration order (enums keep their natural order, e.g. none … max). */
export const schema = builder.toSchema({ sortSchema: false });

/** The SDL as committed (deterministic: registration order). */
export function schemaSdl(): string {
  return `${printSchema(schema)}\n`;
}
