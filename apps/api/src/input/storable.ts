// Text PostgreSQL cannot store: NUL (neither `text` nor `jsonb` holds it) and a lone UTF-16
// surrogate (UTF-8 cannot encode one, and `jsonb` refuses its `\udXXX` escape). Both arrive
// easily: JSON's `\u0000` and `\ud800` are valid escapes, and a client's body is JSON.
// Where such a character cannot mean anything (an id, a name, a model) the request is refused at
// the edge (`unstorablePath`); where it may (message content, tool arguments, an answer) what the
// meter keeps is made storable (`storableJson`): NUL and every lone surrogate become U+FFFD.

import { ApiError } from '../errors.ts';

const REPLACEMENT = '\uFFFD';

/** Whether PostgreSQL refuses this string: it holds NUL or a lone surrogate. */
export function unstorable(s: string): boolean {
  return s.includes('\u0000') || !s.isWellFormed();
}

/** The string with NUL and lone surrogates replaced by U+FFFD (the string itself when it has none). */
export function storableText(s: string): string {
  return unstorable(s) ? s.toWellFormed().replaceAll('\u0000', REPLACEMENT) : s;
}

/** A deep copy of a JSON value with every string and every key made storable. */
export function storableDeep<T>(value: T): T {
  if (typeof value === 'string') return storableText(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => storableDeep(v)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[storableText(k)] = storableDeep(v);
    return out as T;
  }
  return value;
}

/**
 * An escape JSON.stringify writes for NUL or a lone surrogate (a paired one it writes as is):
 * `\u0000` or `\ud800`–`\udfff`, its backslash not itself escaped.
 */
const UNSTORABLE_ESCAPE = /(?:^|[^\\])(?:\\\\)*\\u(?:0000|d[89a-f][0-9a-f]{2})/i;

/**
 * The JSON text of a row the meter writes, storable by PostgreSQL's `jsonb`. The common case
 * costs one scan for `\u` in the text JSON.stringify made anyway; only a row holding NUL or a
 * lone surrogate is copied and serialized again.
 */
export function storableJson(row: unknown): string {
  const json = JSON.stringify(row);
  if (!json.includes('\\u') || !UNSTORABLE_ESCAPE.test(json)) return json;
  return JSON.stringify(storableDeep(row));
}

/**
 * The path (`a.b.0.c`) of the first string under `value` PostgreSQL cannot store; null when
 * there is none. `prefix` names `value` itself (empty: paths start at its fields). A bad key is
 * named by its parent's path, or at the top by itself made printable.
 */
export function unstorablePath(value: unknown, prefix = ''): string | null {
  const at = (k: string | number) => (prefix ? `${prefix}.${k}` : String(k));
  if (typeof value === 'string') return unstorable(value) ? prefix : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = unstorablePath(value[i], at(i));
      if (p !== null) return p;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (unstorable(k)) return prefix || storableText(k);
      const p = unstorablePath(v, at(k));
      if (p !== null) return p;
    }
  }
  return null;
}

/** Refuses (400, `param`) a field that names something (an id, a name, a model) and holds text PostgreSQL cannot store. */
export function refuseUnstorableName(param: string): never {
  throw new ApiError('invalid_request', `${param}: NUL and unpaired UTF-16 surrogates (\\u0000, \\ud800…) cannot be stored; this field names something and cannot hold them.`, { param });
}
