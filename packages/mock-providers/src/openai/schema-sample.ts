// Builds a small value valid for simple JSON Schemas: required properties filled by type.
import { isRecord, type JsonObject } from '../guards.ts';

export function sampleFromSchema(schema: unknown, root: unknown = schema, depth = 0): unknown {
  if (!isRecord(schema) || depth > 12) return {};
  const resolved = resolveRef(schema, root);
  if (resolved !== schema) return sampleFromSchema(resolved, root, depth + 1);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const variants = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (Array.isArray(variants) && variants.length > 0) {
    const usable = variants.find((v: unknown) => !(isRecord(v) && v.type === 'null')) ?? variants[0];
    return sampleFromSchema(usable, root, depth + 1);
  }
  switch (pickType(schema)) {
    case 'string':
      return sampleString(schema);
    case 'integer':
      return typeof schema.minimum === 'number' ? Math.ceil(schema.minimum) : 0;
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 0;
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'array': {
      const count = typeof schema.minItems === 'number' ? schema.minItems : 0;
      return Array.from({ length: count }, () => sampleFromSchema(schema.items, root, depth + 1));
    }
    default:
      return sampleObject(schema, root, depth);
  }
}

function pickType(schema: JsonObject): unknown {
  if (Array.isArray(schema.type)) return schema.type.find((t: unknown) => t !== 'null') ?? schema.type[0];
  return schema.type;
}

function sampleObject(schema: JsonObject, root: unknown, depth: number): JsonObject {
  const out: JsonObject = {};
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  for (const name of required) {
    if (typeof name === 'string') out[name] = sampleFromSchema(properties[name] ?? { type: 'string' }, root, depth + 1);
  }
  return out;
}

function sampleString(schema: JsonObject): string {
  const byFormat: Record<string, string> = {
    'date-time': '2024-01-01T00:00:00Z',
    date: '2024-01-01',
    time: '00:00:00',
    email: 'mock@example.com',
    uri: 'https://example.com',
    uuid: '00000000-0000-4000-8000-000000000000',
  };
  const base = (typeof schema.format === 'string' && byFormat[schema.format]) || 'mock';
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  return base.padEnd(min, 'x');
}

/** Follows local `#/...` references such as `#/$defs/Item`. */
function resolveRef(schema: JsonObject, root: unknown): unknown {
  if (typeof schema.$ref !== 'string' || !schema.$ref.startsWith('#')) return schema;
  let node: unknown = root;
  for (const part of schema.$ref.slice(1).split('/').filter(Boolean)) {
    node = isRecord(node) ? node[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  }
  return isRecord(node) ? node : {};
}
