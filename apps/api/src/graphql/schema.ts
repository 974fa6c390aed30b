// The GraphQL door's schema: every type registered on the builder, printed to
// packages/schema/schema.graphql by print-schema.ts for the web app's codegen.
import { printSchema } from 'graphql';
import { builder } from './builder.ts';
import './catalog.ts';
import './providers.ts';
import './tenant/calls.ts';
import './tenant/workflows.ts';
import './tenant/steps.ts';
import './tenant/discovery.ts';
import './tenant/agents.ts';
import './tenant/settings.ts';
import './tenant/outcomes.ts';
import './tenant/capture.ts';
import './tenant/guard.ts';
import './tenant/limits.ts';
import './tenant/alerts.ts';
import './tenant/billing.ts';
import './tenant/managed.ts';

/** In registration order (enums keep their natural order, e.g. none … max). */
export const schema = builder.toSchema({ sortSchema: false });

/** The SDL as committed (deterministic: registration order). */
export function schemaSdl(): string {
  return `${printSchema(schema)}\n`;
}
