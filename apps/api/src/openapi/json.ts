// JSON Schema pieces of the OpenAPI document: zod schemas converted with zod 4's
// z.toJSONSchema (JSON Schema 2020-12 is OpenAPI 3.1's dialect), named output types as
// references to components, and the small constructors the hand-written operations use.
import { z } from 'zod';
import { components, hintOf } from '../capabilities/shapes.ts';

/** A JSON Schema (2020-12, the dialect of OpenAPI 3.1) as a plain object. */
export type JsonSchema = Record<string, unknown>;

/** A zod schema as JSON Schema; `io: 'input'` for what a client sends (defaults make fields optional). */
export function json(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const out = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as JsonSchema;
  delete out.$schema;
  return out;
}

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
export const obj = (properties: Record<string, JsonSchema>, required = Object.keys(properties)): JsonSchema => ({ type: 'object', properties, required });
export const str: JsonSchema = { type: 'string' };
/** `{ data: [...] }`, the list shape of the control plane. */
export const list = (item: JsonSchema): JsonSchema => obj({ data: { type: 'array', items: item } });
/** A view whose fields are a domain type, not a wire schema: named, not spelled out. */
export const view = (description: string): JsonSchema => ({ type: 'object', description, additionalProperties: true });

export const num: JsonSchema = { type: 'number' };
export const int: JsonSchema = { type: 'integer' };
export const bool: JsonSchema = { type: 'boolean' };
export const time: JsonSchema = { type: 'string', format: 'date-time' };
export const nullable = (s: JsonSchema): JsonSchema => ({ anyOf: [s, { type: 'null' }] });
/** An object with at least these fields (a view may grow fields; a client must not break on them). */
export const open = (properties: Record<string, JsonSchema>, description?: string): JsonSchema => ({ ...obj(properties), ...(description ? { description } : {}), additionalProperties: true });

const COMPONENT = '#/components/schemas/';

/** Points every `$ref` the generator left as a bare component id at `#/components/schemas/<id>`. */
function pointRefs(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(pointRefs);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === '$ref' && typeof x === 'string' && !x.startsWith('#') ? COMPONENT + x : pointRefs(x)]));
}

/** An answer's zod schema as JSON Schema: a named type is a reference to its component, and so is every named part inside. */
export function outputJson(schema: z.ZodType): JsonSchema {
  const id = components.get(schema)?.id;
  if (id) return ref(id);
  const gen = new z.core.JSONSchemaGenerator({ io: 'output', target: 'draft-2020-12', unrepresentable: 'any' });
  gen.process(schema);
  const defs: Record<string, z.core.JSONSchema.BaseSchema> = {};
  const out = gen.emit(schema, { external: { registry: components, defs } }) as JsonSchema;
  // the root itself is filed under the shared definitions too; it is the answer, inlined
  const root = gen.seen.get(schema)?.defId;
  if (root) delete defs[root];
  if (Object.keys(defs).length > 0) throw new Error(`an answer's schema shares unnamed parts (${Object.keys(defs).join(', ')}): name them`);
  delete out.$schema;
  return pointRefs(out) as JsonSchema;
}

/** The components the schemas reference, and those they reference in turn, by name. */
export function componentsFor(schemas: unknown[]): Record<string, JsonSchema> {
  const all = z.toJSONSchema(components, { io: 'output', target: 'draft-2020-12', unrepresentable: 'any', uri: (id) => COMPONENT + id }).schemas as Record<string, JsonSchema>;
  const out: Record<string, JsonSchema> = {};
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (typeof v !== 'object' || v === null) return;
    for (const [k, x] of Object.entries(v)) {
      if (k === '$ref' && typeof x === 'string' && x.startsWith(COMPONENT)) {
        const name = x.slice(COMPONENT.length);
        if (name in out || !(name in all)) continue;
        const { $schema: _s, $id: _i, ...schema } = all[name]!;
        // a shared schema's description is given with its name
        const described = hintOf(components._idmap.get(name) as z.ZodType)?.description;
        out[name] = described && !schema.description ? { description: described, ...schema } : schema;
        visit(schema);
      } else visit(x);
    }
  };
  visit(schemas);
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}
