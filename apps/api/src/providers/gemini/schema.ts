// JSON Schema → Gemini's Schema object (an OpenAPI 3.0 subset), for function
// parameters and responseSchema. What Gemini does not know is rewritten when there is
// an equivalent (type arrays → nullable, oneOf → anyOf, const → enum, local $ref
// inlined) and dropped when it is only a validation hint Gemini cannot express.
import { isRecord } from './guards.ts';

type Json = Record<string, unknown>;

/** The keys Gemini's Schema accepts; anything else is rejected by the API as an unknown field. */
export const SCHEMA_KEYS: ReadonlySet<string> = new Set([
  'type', 'format', 'title', 'description', 'nullable', 'enum', 'maxItems', 'minItems', 'properties', 'required',
  'minProperties', 'maxProperties', 'minLength', 'maxLength', 'pattern', 'example', 'anyOf', 'propertyOrdering',
  'default', 'items', 'minimum', 'maximum',
]);

/** The formats Gemini accepts per type; other formats (email, uri, ...) are dropped. */
export const SUPPORTED_FORMATS: Readonly<Record<string, readonly string[]>> = {
  string: ['enum', 'date-time'],
  number: ['float', 'double'],
  integer: ['int32', 'int64'],
};

/** Rewrites of JSON Schema keys Gemini lacks into ones it has, applied before filtering. */
const REWRITES: Readonly<Record<string, (value: unknown, out: Json) => void>> = {
  oneOf: (v, out) => {
    if (Array.isArray(v) && out.anyOf === undefined) out.anyOf = v;
  },
  const: (v, out) => {
    if (typeof v === 'string' && out.enum === undefined) out.enum = [v];
  },
  examples: (v, out) => {
    if (Array.isArray(v) && v.length > 0 && out.example === undefined) out.example = v[0];
  },
  type: (v, out) => {
    if (!Array.isArray(v)) return;
    const types = v.filter((t) => t !== 'null');
    if (types.length < v.length) out.nullable = true;
    if (types.length === 1) out.type = types[0];
    else {
      delete out.type;
      if (types.length > 1 && out.anyOf === undefined) out.anyOf = types.map((t) => ({ type: t }));
    }
  },
};

const MAX_DEPTH = 32;
/** Schema nodes converted per call at most: a recursive $ref cannot blow up the request. */
const MAX_NODES = 2000;

interface Walk {
  root: Json;
  nodes: number;
  /** Adds propertyOrdering so Gemini writes keys in the client's order (it sorts them otherwise). */
  ordered: boolean;
}

export function toGeminiSchema(schema: unknown, opts: { ordered?: boolean } = {}): Json {
  return convert(schema, { root: isRecord(schema) ? schema : {}, nodes: MAX_NODES, ordered: opts.ordered === true }, 0);
}

function convert(schema: unknown, walk: Walk, depth: number): Json {
  const root = walk.root;
  if (!isRecord(schema) || depth > MAX_DEPTH || --walk.nodes < 0) return {};
  let node = resolveRef(schema, root, depth);
  if (Array.isArray(node.allOf) && node.allOf.length === 1 && isRecord(node.allOf[0])) {
    const { allOf: _allOf, ...rest } = node;
    node = { ...resolveRef(node.allOf[0], root, depth), ...rest };
  }
  const out: Json = { ...node };
  for (const [key, rewrite] of Object.entries(REWRITES)) if (key in node) rewrite(node[key], out);
  for (const key of Object.keys(out)) if (!SCHEMA_KEYS.has(key)) delete out[key];

  if (typeof out.format === 'string' && !SUPPORTED_FORMATS[String(out.type).toLowerCase()]?.includes(out.format)) delete out.format;
  if (isRecord(out.properties)) {
    const props = Object.entries(out.properties).map(([name, sub]) => [name, convert(sub, walk, depth + 1)] as const);
    if (props.length === 0) delete out.properties;
    else {
      out.properties = Object.fromEntries(props);
      if (walk.ordered && out.propertyOrdering === undefined) out.propertyOrdering = props.map(([name]) => name);
    }
  }
  if (Array.isArray(out.required) && out.required.length === 0) delete out.required;
  if (out.items !== undefined) out.items = convert(out.items, walk, depth + 1);
  if (Array.isArray(out.anyOf)) return withAnyOf(out, out.anyOf.map((s) => convert(s, walk, depth + 1)));
  return out;
}

/** A `{type: null}` branch becomes `nullable`; a single branch left is merged in (Pydantic's Optional[X]). */
function withAnyOf(out: Json, branches: Json[]): Json {
  const kept = branches.filter((b) => String(b.type).toLowerCase() !== 'null');
  if (kept.length < branches.length) out.nullable = true;
  delete out.anyOf;
  if (kept.length === 1) return { ...kept[0], ...out };
  if (kept.length > 1) out.anyOf = kept;
  return out;
}

/** Inlines a local `#/$defs/...` or `#/definitions/...` reference; any other ref is left to be dropped. */
function resolveRef(schema: Json, root: Json, depth: number): Json {
  if (typeof schema.$ref !== 'string' || !schema.$ref.startsWith('#/') || depth > MAX_DEPTH) return schema;
  let target: unknown = root;
  for (const part of schema.$ref.slice(2).split('/')) {
    target = isRecord(target) ? target[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  }
  if (!isRecord(target)) return schema;
  const { $ref: _ref, ...siblings } = schema;
  return resolveRef({ ...target, ...siblings }, root, depth + 1);
}

/** True when an object schema has no properties: Gemini rejects `properties: {}` on OBJECT. */
export function isEmptyObjectSchema(schema: Json): boolean {
  return String(schema.type).toLowerCase() === 'object' && !isRecord(schema.properties) && schema.anyOf === undefined;
}
