// Protobuf-JSON parsing of a generateContent body, as strict as Google's front end:
// unknown field names, lists where one value goes, and values of the wrong type are
// all reported (every one, with its snake_case path), before anything else is checked.
import { isRecord } from '../guards.ts';
import { MESSAGES, PROTO_PACKAGE, type FieldType } from './known.ts';

export interface Violation {
  /** snake_case path, e.g. `generation_config.temperature`; '' for the root. */
  field: string;
  description: string;
}

const snake = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const camel = (name: string): string => name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
const join = (path: string, name: string): string => (path ? `${path}.${name}` : name);
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

export function parseRequest(body: unknown): Violation[] {
  const out: Violation[] = [];
  if (!isRecord(body)) return [{ field: '', description: 'Invalid JSON payload received. Unknown name "": Root element must be a message.' }];
  walkMessage('GenerateContentRequest', body, '', out);
  return out;
}

function walkMessage(name: string, obj: Record<string, unknown>, path: string, out: Violation[]): void {
  const fields = MESSAGES[name] ?? {};
  const where = path ? ` at '${path}'` : '';
  for (const [key, value] of Object.entries(obj)) {
    const fieldName = key in fields ? key : camel(key) in fields ? camel(key) : undefined;
    const field = fieldName === undefined ? undefined : fields[fieldName];
    if (!field || fieldName === undefined) {
      out.push({ field: path, description: `Invalid JSON payload received. Unknown name "${key}"${where}: Cannot find field.` });
      continue;
    }
    if (value === null) continue;
    const at = join(path, snake(fieldName));
    if (field.map) {
      if (!isRecord(value)) out.push(invalid(at, field.type, value));
      else Object.values(value).forEach((v, i) => walkValue(field.type, v, `${at}[${i}].value`, out));
    } else if (field.repeated) {
      if (!Array.isArray(value)) out.push(invalid(at, field.type, value));
      else value.forEach((v, i) => walkValue(field.type, v, `${at}[${i}]`, out));
    } else if (Array.isArray(value) && field.type !== 'value') {
      out.push({ field: path, description: `Invalid JSON payload received. Unknown name "${key}"${where}: Proto field is not repeating, cannot start list.` });
    } else {
      walkValue(field.type, value, at, out);
    }
  }
}

function walkValue(type: FieldType, value: unknown, at: string, out: Violation[]): void {
  if (typeof type === 'object' && 'message' in type) {
    if (isRecord(value)) walkMessage(type.message, value, at, out);
    else out.push(invalid(at, type, value));
    return;
  }
  if (!accepts(type, value)) {
    out.push(
      type === 'bytes' && typeof value === 'string'
        ? { field: at, description: `Invalid value at '${at}' (TYPE_BYTES), Base64 decoding failed for ${JSON.stringify(value)}` }
        : invalid(at, type, value),
    );
  }
}

function accepts(type: Exclude<FieldType, { message: string }>, value: unknown): boolean {
  if (typeof type === 'object') return typeof value === 'string' && type.values.includes(value.toUpperCase());
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'bool':
      return typeof value === 'boolean';
    case 'int32':
    case 'int64':
      return (typeof value === 'number' && Number.isInteger(value)) || (typeof value === 'string' && /^-?\d+$/.test(value));
    case 'float':
      return (typeof value === 'number' && Number.isFinite(value)) || (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)));
    case 'bytes':
      return typeof value === 'string' && BASE64.test(value) && value.replace(/=+$/, '').length % 4 !== 1;
    case 'struct':
      return isRecord(value);
    case 'value':
      return true;
  }
}

function typeName(type: FieldType): string {
  if (typeof type === 'object') return `${PROTO_PACKAGE}.${'message' in type ? type.message : type.enum}`;
  if (type === 'struct') return 'type.googleapis.com/google.protobuf.Struct';
  return `TYPE_${type === 'float' ? 'FLOAT' : type.toUpperCase()}`;
}

function invalid(at: string, type: FieldType, value: unknown): Violation {
  return { field: at, description: `Invalid value at '${at}' (${typeName(type)}), ${JSON.stringify(value)}` };
}

/** A parsed body with every message field under its lowerCamel name (struct and free-form values untouched). */
export function normalize(name: string, obj: Record<string, unknown>): Record<string, unknown> {
  const fields = MESSAGES[name] ?? {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj)) {
    const fieldName = key in fields ? key : camel(key);
    const field = fields[fieldName];
    if (!field || value === null) continue;
    const type = field.type;
    const one = (v: unknown): unknown => (typeof type === 'object' && 'message' in type && isRecord(v) ? normalize(type.message, v) : v);
    if (field.map && isRecord(value)) out[fieldName] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, one(v)]));
    else if (field.repeated && Array.isArray(value)) out[fieldName] = value.map(one);
    else out[fieldName] = one(value);
  }
  return out;
}
