// The GraphQL door of the capabilities: a root field each (a query for reads, a mutation for
// writes), its arguments and answer type derived from the capability's schemas (derive.ts).
// The resolver checks who is asking as the definition says, brings the arguments back to the
// wire shape, parses them with the capability's schema (so a mistake reads as on REST, with
// the GraphQL name of the field) and calls the domain function. A few answers have a GraphQL
// shape of their own (`graphqlShape`): a zod schema and the function that makes it.
import type { z } from 'zod';
import { capabilityList, type AnyCapability, type CapabilityTree } from '../capabilities/capability.ts';
import { parseWith } from '../input/validate.ts';
import { ADMIN_FIELD, adminServices, requireTenant, type Builder, type GraphQLContext } from './builder.ts';
import { Deriver, toWireBySchema } from './derive.ts';

/** Runs the capability for the one asking, on an input in the wire shape, and shapes its answer for GraphQL. */
async function answerOf(cap: AnyCapability, ctx: GraphQLContext, wire: unknown): Promise<unknown> {
  const caller = cap.auth === 'control' ? requireTenant(ctx) : null;
  if (cap.auth === 'admin') adminServices(ctx);
  const input = cap.input ? parseWith(cap.input as z.ZodType, wire) : undefined;
  const out = await cap.run(ctx.services, caller, input);
  const presented = cap.present ? cap.present(out) : out;
  return cap.graphql?.shape ? cap.graphql.shape.present(presented) : presented;
}

function resolver(cap: AnyCapability) {
  const door = cap.graphql!;
  const schema = cap.input as z.ZodType | undefined;
  return (_root: unknown, args: Record<string, unknown>, ctx: GraphQLContext): Promise<unknown> =>
    answerOf(cap, ctx, schema && (door.inputArg ? toWireBySchema(schema, args[door.inputArg.arg], true) : toWireBySchema(schema, args, false)));
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
      const also = door.alsoOn;
      if (also) {
        builder.objectField(derive.objectType(also.type), also.field, (t: any) =>
          t.field({ type: answer.type, nullable: answer.nullable, ...(also.description ? { description: also.description } : {}), resolve: (parent: unknown, _args: unknown, ctx: GraphQLContext) => answerOf(cap, ctx, also.input(parent)) }),
        );
      }
    } catch (err) {
      throw new Error(`capability ${name}: ${(err as Error).message}`, { cause: err });
    }
  }
  return derive;
}
