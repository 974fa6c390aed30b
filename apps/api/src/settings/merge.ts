// The one rule every settings write follows (routing, capture, guard, limits, alerts), on every
// door: what a tenant stores is only what it set. A write merges into it: a field left out keeps
// its value, a nested object merges field by field (`cache.exact` alone keeps `cache.semantic`),
// a list or a scalar is replaced, and `null` removes the field, so it reads its default again.
// Reads fill the defaults in (each store knows its topic's). The write schemas that let null
// through are derived from the full ones (packages/schema/src/settings-write.ts).
import type { z } from 'zod';
import { parseWith } from '../input/validate.ts';

export type Stored = Record<string, unknown>;

function isPlain(v: unknown): v is Stored {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `stored` with `patch` merged in (neither is changed); objects left empty by nulls are dropped. */
export function mergeSettings(stored: Stored, patch: Stored): Stored {
  const out: Stored = { ...stored };
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    if (v === null) {
      delete out[k];
      continue;
    }
    if (isPlain(v)) {
      const merged = mergeSettings(isPlain(out[k]) ? out[k] : {}, v);
      if (Object.keys(merged).length > 0) out[k] = merged;
      else delete out[k];
      continue;
    }
    out[k] = v;
  }
  return out;
}

/** `full` cut down to the fields present in `shape` (at every depth of nested objects): the parsed form of what was set. */
export function keepSet(full: Stored, shape: Stored): Stored {
  const out: Stored = {};
  for (const [k, v] of Object.entries(shape)) {
    if (!(k in full)) continue;
    out[k] = isPlain(v) && isPlain(full[k]) ? keepSet(full[k], v) : full[k];
  }
  return out;
}

/**
 * A merge write checked by the topic's full schema (its refinements and ranges; a 422 names
 * the field as the request spelled it): what to store (the fields set, as parsed) and the
 * effective settings (defaults filled in by the schema).
 */
export function mergeWrite<T extends object>(schema: z.ZodType<T>, stored: Stored, patch: object): { stored: Stored; effective: T } {
  const merged = mergeSettings(stored, patch as Stored);
  const effective = parseWith(schema, merged);
  return { stored: keepSet(effective as Stored, merged), effective };
}
