// JSON Schema checks for the quality gate: a `json_schema` answer against the schema the
// request sent, a tool call's arguments against the tool's parameter schema. Ajv compiles
// each schema once; the compiled validators are kept by the schema's text, least recently
// used first out, so a tenant that sends a new schema per call cannot grow memory.
//
// The schemas come from the tenant's requests, so they are treated as untrusted: a schema
// larger than MAX_SCHEMA_CHARS, or one Ajv cannot compile, is not checked (the gate says so
// instead of refusing a good answer), and a `pattern` whose nested quantifiers could take
// exponential time on V8's backtracking engine is not run (it matches anything).
import { Ajv, type ValidateFunction } from 'ajv';

/** Compiled validators kept at once. */
export const MAX_COMPILED = 256;
/** A schema longer than this (as JSON text) is not compiled. */
export const MAX_SCHEMA_CHARS = 64_000;

/** A group that is itself quantified and holds a quantifier: `(a+)+`, `(\w*)*`, `(x{2,})+`. */
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[*+}](?:[^()\\]|\\.)*\)\s*[*+{]/;

interface RegExpLike {
  test(s: string): boolean;
}
function safeRegExp(pattern: string, flags: string): RegExpLike {
  if (NESTED_QUANTIFIER.test(pattern)) return { test: () => true };
  return new RegExp(pattern, flags);
}
safeRegExp.code = 'safeRegExp';

const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: false, logger: false, code: { regExp: safeRegExp as never } });

const compiled = new Map<string, ValidateFunction | null>();

/** The validator of a schema (compiled once, then cached), or null when it cannot be checked. */
export function validatorFor(schema: unknown): ValidateFunction | null {
  if (schema === null || typeof schema !== 'object') return null;
  const text = JSON.stringify(schema);
  if (text.length > MAX_SCHEMA_CHARS) return null;
  if (compiled.has(text)) {
    const v = compiled.get(text)!;
    compiled.delete(text); // re-inserted: the map's order is recency
    compiled.set(text, v);
    return v;
  }
  let v: ValidateFunction | null;
  try {
    // `$schema` names a draft; the checks here are the keywords every draft shares
    const { $schema: _draft, ...rest } = schema as Record<string, unknown>;
    v = ajv.compile(rest);
  } catch {
    v = null;
  }
  compiled.set(text, v);
  if (compiled.size > MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
  return v;
}

/** How many validators are held (for tests of the bound). */
export function compiledCount(): number {
  return compiled.size;
}

/**
 * What is wrong with `value` under `schema`, in a few words (`/path must be …`), or null when it
 * holds, or when the schema cannot be checked.
 */
export function schemaProblem(schema: unknown, value: unknown): string | null {
  const validate = validatorFor(schema);
  if (!validate || validate(value)) return null;
  const e = validate.errors?.[0];
  if (!e) return 'does not match the schema';
  return `${e.instancePath || '(root)'} ${e.message ?? 'does not match the schema'}`;
}
