// The GraphQL door's schemas, made from a set of capabilities (graphql/capabilities.ts) and the
// platform admin's hand-written catalog and providers types, printed to
// packages/schema/schema.graphql by print-schema.ts for the web app's codegen. The admin is
// served the whole schema; a tenant (key or session) the tenant schema, which leaves out the
// root fields marked ADMIN_FIELD, so introspection shows a tenant only what it may call.
import { GraphQLObjectType, GraphQLSchema, printSchema, type GraphQLFieldConfigMap } from 'graphql';
import { capabilityList, type CapabilityTree } from '../capabilities/capability.ts';
import { capabilities } from '../capabilities/index.ts';
import { refuseUnstorable } from '../input/validate.ts';
import { createBuilder } from './builder.ts';
import { registerCapabilityFields } from './capabilities.ts';
import { registerCatalog } from './catalog.ts';
import { registerProviders } from './providers.ts';

/**
 * Every root field's arguments are refused (BAD_USER_INPUT, apiCode invalid_request, naming
 * the argument) when they hold a NUL or a lone surrogate, as REST refuses such text in a
 * control-plane body: PostgreSQL cannot store it, and it cannot be an id, a name or a setting.
 * A free-text capability's (the outcome's ids) are checked where it is taken, with the same
 * words on every door.
 */
function refuseUnstorableArguments(root: GraphQLObjectType | null | undefined, freeText: ReadonlySet<string>): void {
  if (!root) return;
  for (const field of Object.values(root.getFields())) {
    if (freeText.has(field.name) || field.args.length === 0) continue;
    const resolve = field.resolve;
    if (!resolve) continue;
    field.resolve = (source, args, context, info) => {
      refuseUnstorable(args, 'argument');
      return resolve(source, args, context, info);
    };
  }
}

/** A root type without the admin's fields. */
function withoutAdminFields(root: GraphQLObjectType): GraphQLObjectType {
  const config = root.toConfig();
  const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const [name, field] of Object.entries(config.fields)) if (field.extensions?.admin !== true) fields[name] = field;
  return new GraphQLObjectType({ ...config, fields });
}

export interface Schemas {
  /** The whole schema (the admin's), in registration order (enums keep their natural order, e.g. none … max). */
  schema: GraphQLSchema;
  /** What a tenant is served: the same types and resolvers, without the admin's root fields (and types only they reach). */
  tenantSchema: GraphQLSchema;
}

function build(set: CapabilityTree): Schemas {
  const builder = createBuilder();
  registerCatalog(builder);
  registerProviders(builder);
  registerCapabilityFields(builder, set);
  const schema = builder.toSchema({ sortSchema: false });
  const freeText = new Set([...capabilityList(set).flatMap(({ cap }) => (cap.freeText && cap.graphql ? [cap.graphql.name] : []))]);
  refuseUnstorableArguments(schema.getQueryType(), freeText);
  refuseUnstorableArguments(schema.getMutationType(), freeText);
  const tenantSchema = new GraphQLSchema({
    ...schema.toConfig(),
    query: withoutAdminFields(schema.getQueryType()!),
    mutation: withoutAdminFields(schema.getMutationType()!),
    types: [],
  });
  return { schema, tenantSchema };
}

const built = new WeakMap<CapabilityTree, Schemas>();

/** The schemas of a set of capabilities, made once per set. */
export function schemasFor(set: CapabilityTree): Schemas {
  let s = built.get(set);
  if (!s) built.set(set, (s = build(set)));
  return s;
}

/** The gateway's whole schema (the admin's). */
export const schema = schemasFor(capabilities).schema;

/** The SDL of the gateway's schema as committed (deterministic: registration order). */
export function schemaSdl(): string {
  return `${printSchema(schema)}\n`;
}
