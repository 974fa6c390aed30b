// The GraphQL door's schemas: every type registered on the builder, printed to
// packages/schema/schema.graphql by print-schema.ts for the web app's codegen. The admin is
// served the whole schema; a tenant (key or session) the tenant schema, which leaves out the
// root fields marked ADMIN_FIELD, so introspection shows a tenant only what it may call.
import { GraphQLObjectType, GraphQLSchema, printSchema, type GraphQLFieldConfigMap } from 'graphql';
import { refuseUnstorable } from '../http/validate.ts';
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

/**
 * Root fields whose arguments may hold any text: the outcome's ids are checked where the
 * outcome is taken (domain/outcomes.ts), with the same words on every door.
 */
const FREE_TEXT_FIELDS = new Set(['reportOutcome']);

/**
 * Every root field's arguments are refused (BAD_USER_INPUT, apiCode invalid_request, naming
 * the argument) when they hold a NUL or a lone surrogate, as REST refuses such text in a
 * control-plane body: PostgreSQL cannot store it, and it cannot be an id, a name or a setting.
 */
function refuseUnstorableArguments(root: GraphQLObjectType | null | undefined): void {
  if (!root) return;
  for (const field of Object.values(root.getFields())) {
    if (FREE_TEXT_FIELDS.has(field.name) || field.args.length === 0) continue;
    const resolve = field.resolve;
    if (!resolve) continue;
    field.resolve = (source, args, context, info) => {
      refuseUnstorable(args, 'argument');
      return resolve(source, args, context, info);
    };
  }
}

/** The whole schema (the admin's), in registration order (enums keep their natural order, e.g. none … max). */
export const schema = builder.toSchema({ sortSchema: false });
refuseUnstorableArguments(schema.getQueryType());
refuseUnstorableArguments(schema.getMutationType());

/** A root type without the admin's fields. */
function withoutAdminFields(root: GraphQLObjectType): GraphQLObjectType {
  const config = root.toConfig();
  const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const [name, field] of Object.entries(config.fields)) if (field.extensions?.admin !== true) fields[name] = field;
  return new GraphQLObjectType({ ...config, fields });
}

/** What a tenant is served: the same types and resolvers, without the admin's root fields (and types only they reach). */
export const tenantSchema = new GraphQLSchema({
  ...schema.toConfig(),
  query: withoutAdminFields(schema.getQueryType()!),
  mutation: withoutAdminFields(schema.getMutationType()!),
  types: [],
});

/** The SDL as committed (deterministic: registration order). */
export function schemaSdl(): string {
  return `${printSchema(schema)}\n`;
}
