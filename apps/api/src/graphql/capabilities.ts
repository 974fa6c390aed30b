// The GraphQL door of the capabilities: a root field each (a query for reads, a mutation for
// writes), its arguments and answer type derived from the capability's schemas (derive.ts).
// The resolver checks who is asking as the definition says, brings the arguments back to the
// wire shape, parses them with the capability's schema (so a mistake reads as on REST, with
// the GraphQL name of the field) and calls the domain function. A few answers have a GraphQL
// shape of their own (`graphqlShape`): a zod schema and the function that makes it.
import type { z } from 'zod';
import { capabilityList, type AnyCapability, type CapabilityTree } from '../capabilities/capability.ts';
import { parseWith } from '../http/validate.ts';
import { ADMIN_FIELD, adminServices, requireTenant, type Builder, type GraphQLContext } from './builder.ts';
import { Deriver, toWireBySchema } from './derive.ts';

function resolver(cap: AnyCapability) {
  const door = cap.graphql!;
  return async (_root: unknown, args: Record<string, unknown>, ctx: GraphQLContext): Promise<unknown> => {
    const caller = cap.auth === 'control' ? requireTenant(ctx) : null;
    if (cap.auth === 'admin') adminServices(ctx);
    let input: unknown;
    if (cap.input) {
      const schema = cap.input as z.ZodType;
      input = parseWith(schema, door.inputArg ? toWireBySchema(schema, args[door.inputArg.arg], true) : toWireBySchema(schema, args, false));
    }
    const out = await cap.run(ctx.services, caller, input);
    return door.shape ? door.shape.present(out) : out;
  };
}

/** Adds a root field for every capability of the set with a GraphQL door; the deriver keeps the types made. */
export function registerCapabilityFields(builder: Builder, set: CapabilityTree): Deriver {
  const derive = new Deriver(builder);
  const withDoor = capabilityList(set).filter(({ cap }) => cap.graphql);
  // every answer's types first: an argument may name an enum only an answer has
  const answers = withDoor.map(({ cap }) => derive.output(cap.graphql!.shape?.schema ?? cap.output, cap.graphql!.name));
  for (const [i, { name, cap }] of withDoor.entries()) {
    const door = cap.graphql!;
    const answer = answers[i]!;
    const field = (t: any) =>
      t.field({
        type: answer.type,
        nullable: answer.nullable,
        ...(door.description ? { description: door.description } : {}),
        ...(cap.input ? { args: derive.args(t, cap.input as z.ZodType, door) } : {}),
        ...(cap.auth === 'admin' ? { extensions: ADMIN_FIELD } : {}),
        resolve: resolver(cap),
      });
    try {
      if (cap.kind === 'query') builder.queryField(door.name, field);
      else builder.mutationField(door.name, field);
    } catch (err) {
      throw new Error(`capability ${name}: ${(err as Error).message}`, { cause: err });
    }
  }
  return derive;
}
