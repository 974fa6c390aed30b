// GraphQL types from zod schemas. An output schema becomes the field's type: a named object a
// GraphQL object type whose fields are its keys camelCased (each resolved from the snake_case
// key REST sends), a named enum an enum type, whole numbers Int (unless hinted Float), open
// parts (unknown, records, unions) the JSON scalar. An input schema becomes the field's
// arguments (or one input object), and the arguments go back to the wire shape by the same
// schema before it parses them, so GraphQL, REST and tRPC parse one input alike.
import type { z } from 'zod';
import { z as zod } from 'zod';
import { hintOf, type GraphQLHint } from '../capabilities/shapes.ts';
import type { GraphQLDoor, GraphQLInputName } from '../capabilities/capability.ts';
import { fromWire as camel, type Builder } from './builder.ts';

type Def = { type: string; innerType?: z.ZodType; in?: z.ZodType; out?: z.ZodType; element?: z.ZodType; entries?: Record<string, string>; values?: unknown[]; getter?: () => z.ZodType; shape?: Record<string, z.ZodType> };
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;
const parentOf = (s: z.ZodType): z.ZodType | undefined => (s as unknown as { _zod: { parent?: z.ZodType } })._zod.parent;
const formatOf = (s: z.ZodType): string | undefined => (s as unknown as { _zod: { bag: { format?: string } } })._zod.bag.format;

/** The hint of a schema or of the schema it was cloned from (`.describe()` clones). */
function hint(s: z.ZodType): GraphQLHint {
  const out: GraphQLHint = {};
  for (let cur: z.ZodType | undefined = s; cur; cur = parentOf(cur)) {
    const h = hintOf(cur);
    out.name ??= h?.name;
    out.description ??= h?.description;
    out.scalar ??= h?.scalar;
    out.nullableFields ??= h?.nullableFields;
  }
  return out;
}

/** The schema a name was given to, for a clone of it (`.describe()` on a named schema). */
function namedInstance(s: z.ZodType): z.ZodType {
  for (let cur: z.ZodType | undefined = s; cur; cur = parentOf(cur)) if (hintOf(cur)?.name) return cur;
  return s;
}

/** The description given to this very schema (a field's), not inherited from what it was cloned from. */
const ownDescription = (s: z.ZodType): string | undefined => (zod.globalRegistry as unknown as { _map: Map<z.ZodType, { description?: string }> })._map.get(s)?.description;
/** The description of a named type: the one given with its name, or zod's (its own or inherited). */
const typeDescription = (s: z.ZodType): string | undefined => hint(s).description ?? zod.globalRegistry.get(s)?.description;

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'catch', 'readonly', 'nonoptional', 'lazy', 'pipe']);

interface Unwrapped {
  base: z.ZodType;
  /** May be null or left out (output) / need not be sent (input). */
  nullable: boolean;
  /** Nullable but not optional: a field that must be there, null or not (an input's `{ a: number | null }`). */
  nullOnly: boolean;
  description?: string;
}

/** The schema under its wrappers, stopping at a named or hinted one. */
function unwrap(s: z.ZodType, io: 'input' | 'output'): Unwrapped {
  let cur = s;
  let nullable = false;
  let optional = false;
  let description: string | undefined;
  for (;;) {
    // a named type's own description is the type's; a clone of it (`.describe()`) describes the field
    if (hintOf(cur)?.name) break;
    description ??= ownDescription(cur);
    const h = hint(cur);
    const d = defOf(cur);
    if (h.name || h.scalar || !WRAPPERS.has(d.type)) break;
    if (d.type === 'nullable') nullable = true;
    if (d.type === 'optional') optional = true;
    // a default fills the output; on the input it may be left out
    if ((d.type === 'default' || d.type === 'prefault') && io === 'input') optional = true;
    if (d.type === 'nonoptional') optional = false;
    cur = d.type === 'lazy' ? d.getter!() : d.type === 'pipe' ? (io === 'input' ? d.in! : d.out!) : d.innerType!;
  }
  // a hinted scalar keeps its base, but what it wraps may still be null (`asJson(x.nullable())`)
  if (hint(cur).scalar) {
    for (let inner = cur; WRAPPERS.has(defOf(inner).type) && defOf(inner).type !== 'pipe' && defOf(inner).type !== 'lazy'; inner = defOf(inner).innerType!) {
      if (defOf(inner).type === 'nullable') nullable = true;
      if (defOf(inner).type === 'optional') optional = true;
    }
  }
  return { base: cur, nullable: nullable || optional, nullOnly: nullable && !optional, description };
}

type TypeParam = any;

interface FieldType {
  type: TypeParam;
  nullable: boolean | { list: boolean; items: boolean };
}

/** GraphQL types of one builder, made from zod schemas on first use and kept by name. */
export class Deriver {
  readonly #b: Builder;
  readonly #objects = new Map<string, { schema: z.ZodType; ref: TypeParam }>();
  readonly #inputs = new Map<string, { schema: z.ZodType; ref: TypeParam }>();
  readonly #enums = new Map<string, { values: string[]; ref: TypeParam }>();

  constructor(builder: Builder) {
    this.#b = builder;
  }

  /** The object type of this name, once an output made it (for a door's own extra fields). */
  objectType(name: string): TypeParam {
    const o = this.#objects.get(name);
    if (!o) throw new Error(`no GraphQL object type ${name} was derived`);
    return o.ref;
  }

  #enum(name: string, s: z.ZodType): TypeParam {
    const d = defOf(s);
    const values = d.entries ? Object.values(d.entries) : (d.values as string[]);
    const have = this.#enums.get(name);
    if (have) {
      if (have.values.join() !== values.join()) throw new Error(`GraphQL enum ${name} is given two sets of values`);
      return have.ref;
    }
    const ref = this.#b.enumType(name, { values: values as [string, ...string[]], ...(typeDescription(s) ? { description: typeDescription(s) } : {}) });
    this.#enums.set(name, { values, ref });
    return ref;
  }

  #enumHolding(name: string, value: unknown, where: string): TypeParam {
    const have = this.#enums.get(name);
    if (!have?.values.includes(value as string)) throw new Error(`${where}: the GraphQL enum ${name} is not derived yet or lacks ${String(value)}`);
    return have.ref;
  }

  #scalar(s: z.ZodType, where: string, floats = false): TypeParam {
    const h = hint(s);
    if (h.scalar) return h.scalar;
    const d = defOf(s);
    switch (d.type) {
      case 'string':
      case 'template_literal':
        return 'String';
      case 'boolean':
        return 'Boolean';
      case 'number':
        return !floats && formatOf(s) === 'safeint' ? 'Int' : 'Float';
      case 'enum':
        return h.name ? this.#enum(h.name, namedInstance(s)) : 'String';
      case 'literal': {
        const v = d.values![0];
        // a literal named after an enum is that enum (an input that takes one of its values)
        if (h.name) return this.#enumHolding(h.name, v, where);
        return typeof v === 'boolean' ? 'Boolean' : typeof v === 'number' ? (Number.isInteger(v) ? 'Int' : 'Float') : 'String';
      }
      case 'unknown':
      case 'any':
      case 'record':
      case 'union':
      case 'intersection':
      case 'tuple':
        return 'JSON';
      default:
        throw new Error(`GraphQL cannot carry the zod ${d.type} at ${where}`);
    }
  }

  /** The type of an output field (or a root field's answer). */
  output(s: z.ZodType, where: string): FieldType & { description?: string } {
    const u = unwrap(s, 'output');
    const d = defOf(u.base);
    if (d.type === 'array' && !hint(u.base).scalar) {
      const item = unwrap(d.element!, 'output');
      return { type: [this.#outputBase(item.base, `${where}[]`)], nullable: item.nullable ? { list: u.nullable, items: true } : u.nullable, description: u.description };
    }
    return { type: this.#outputBase(u.base, where), nullable: u.nullable, description: u.description };
  }

  #outputBase(field: z.ZodType, where: string): TypeParam {
    const h = hint(field);
    const s = namedInstance(field);
    if (defOf(s).type !== 'object' || h.scalar) return this.#scalar(s, where);
    if (!h.name) throw new Error(`GraphQL needs a name for the object at ${where}: name it with named() (capabilities/shapes.ts)`);
    const have = this.#objects.get(h.name);
    if (have) {
      if (have.schema !== s && defOf(have.schema).shape !== defOf(s).shape) throw new Error(`two objects are named ${h.name}`);
      return have.ref;
    }
    const ref = this.#b.objectRef<Record<string, unknown>>(h.name);
    this.#objects.set(h.name, { schema: s, ref });
    // the fields' types now (the type is in the map already, so a cycle ends), so every enum an answer names exists before any argument needs it
    const fields = Object.entries(defOf(s).shape!).map(([key, field]) => [key, this.output(field, `${h.name}.${key}`)] as const);
    const description = typeDescription(s);
    ref.implement({
      ...(description ? { description } : {}),
      fields: (t) =>
        Object.fromEntries(
          fields.map(([key, f]) => [
            camel(key),
            t.field({ type: f.type, nullable: (h.nullableFields ? (Array.isArray(f.type) ? { list: true, items: false } : true) : f.nullable) as never, ...(f.description ? { description: f.description } : {}), resolve: (o: Record<string, unknown>) => (o[key] ?? null) as never }),
          ]),
        ),
    });
    return ref;
  }

  /** The GraphQL type of an input field. */
  #input(s: z.ZodType, path: string, door: GraphQLDoor): { type: TypeParam; required: boolean; description?: string } {
    const u = unwrap(s, 'input');
    const description = door.inputDescriptions?.[path] ?? u.description;
    const d = defOf(u.base);
    const floats = door.floats === true;
    if (d.type === 'array' && !hint(u.base).scalar) {
      const item = unwrap(d.element!, 'input');
      return { type: [this.#inputBase(item.base, path, door, floats)], required: !u.nullable, ...(description ? { description } : {}) };
    }
    return { type: this.#inputBase(u.base, path, door, floats), required: !u.nullable, ...(description ? { description } : {}) };
  }

  #inputBase(s: z.ZodType, path: string, door: GraphQLDoor, floats: boolean): TypeParam {
    if (defOf(s).type !== 'object' || hint(s).scalar) return this.#scalar(s, path, floats);
    const named = door.inputTypes?.[path];
    if (!named) throw new Error(`GraphQL needs a name for the input object at ${path}: give it in the capability's graphql.inputTypes`);
    return this.inputObject(s, named, path, door);
  }

  /** An input object type made from an object schema; `prefix` is its wire path (empty at the root). */
  inputObject(s: z.ZodType, named: GraphQLInputName, prefix: string, door: GraphQLDoor): TypeParam {
    const { name, description } = typeof named === 'string' ? { name: named, description: undefined } : named;
    const have = this.#inputs.get(name);
    if (have) return have.ref;
    const shape = defOf(s).shape!;
    const ref = this.#b.inputType(name, {
      ...(description ? { description } : {}),
      fields: (t) =>
        Object.fromEntries(
          Object.entries(shape).map(([key, field]) => {
            const f = this.#input(field, prefix ? `${prefix}.${key}` : key, door);
            return [camel(key), t.field({ type: f.type, required: f.required as never, ...(f.description ? { description: f.description } : {}) })];
          }),
        ),
    });
    this.#inputs.set(name, { schema: s, ref });
    return ref;
  }

  /** A root field's arguments: the input's fields (or one input object, `inputArg`). */
  args(t: { arg: (o: any) => any }, input: z.ZodType, door: GraphQLDoor): Record<string, unknown> {
    const base = unwrap(input, 'input').base;
    if (door.inputArg) {
      const { arg, ...named } = door.inputArg;
      return { [arg]: t.arg({ type: this.inputObject(base, named, '', door), required: true }) };
    }
    const shape = defOf(base).shape ?? {};
    return Object.fromEntries(
      Object.entries(shape).map(([key, field]) => {
        const f = this.#input(field, key, door);
        return [camel(key), t.arg({ type: f.type, required: f.required, ...(f.description ? { description: f.description } : {}) })];
      }),
    );
  }
}

/**
 * A field's arguments in the wire shape its schema parses: keys snake_cased by the schema
 * (nested input objects too; a JSON value stays as sent), nulls dropped so defaults apply
 * (kept with `keepNulls`: a settings write, where null returns a field to its default), and a
 * field the schema wants present but nullable given null when left out.
 */
export function toWireBySchema(schema: z.ZodType, value: unknown, keepNulls: boolean): unknown {
  if (value === null || value === undefined) return value;
  const u = unwrap(schema, 'input');
  const d = defOf(u.base);
  if (hint(u.base).scalar === 'JSON') return value;
  if (d.type === 'array' && Array.isArray(value)) return value.map((v) => toWireBySchema(d.element!, v, keepNulls));
  if (d.type !== 'object' || typeof value !== 'object') return value;
  const from = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(d.shape!)) {
    const v = from[camel(key)];
    if (v === undefined || (v === null && !keepNulls)) {
      if (unwrap(field, 'input').nullOnly) out[key] = null;
      continue;
    }
    out[key] = toWireBySchema(field, v, keepNulls);
  }
  return out;
}
