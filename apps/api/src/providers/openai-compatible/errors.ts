// Reads the error bodies OpenAI-compatible vendors answer with into one set of fields
// (message, type, code, param): the vendor's own shapes first, then the others, since a
// vendor's gateway and its API do not always agree (Mistral: 401 from the gateway as
// {"message"}, 422 from the API as {"object": "error"}).
import type { ApiError } from '../../errors.ts';
import { tryJson, vendorError, type VendorErrorFields } from '../vendor-error.ts';
import type { ErrorShape, VendorProfile } from './profile.ts';

type Json = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const code = (v: unknown): string | number | undefined => (typeof v === 'string' || typeof v === 'number' ? v : undefined);

/** Pydantic/FastAPI validation details as one line: "max_completion_tokens: Extra inputs are not permitted". */
function detailText(detail: unknown): string | undefined {
  if (typeof detail === 'string') return detail;
  if (!Array.isArray(detail)) return undefined;
  return detail
    .map((d: { loc?: unknown; msg?: unknown }) => {
      const loc = Array.isArray(d?.loc) ? d.loc.filter((p) => p !== 'body').join('.') : '';
      return loc ? `${loc}: ${String(d?.msg ?? '')}` : String(d?.msg ?? '');
    })
    .join('; ');
}

function messageText(m: unknown): string | undefined {
  if (typeof m === 'string') return m || undefined;
  if (m && typeof m === 'object') return detailText((m as Json).detail) ?? JSON.stringify(m);
  return undefined;
}

const readers: Record<ErrorShape, (j: Json) => VendorErrorFields | null> = {
  openai: (j) => {
    if (!j.error || typeof j.error !== 'object') return null;
    const e = j.error as Json;
    return { message: messageText(e.message), type: str(e.type), code: code(e.code), param: str(e.param) };
  },
  'error-string': (j) => (typeof j.error === 'string' ? { message: j.error, code: code(j.code) } : null),
  'object-error': (j) =>
    typeof j.object === 'string' && j.object.toLowerCase() === 'error'
      ? { message: messageText(j.message) ?? detailText(j.detail), type: str(j.type), code: code(j.code), param: str(j.param) }
      : null,
  detail: (j) => (j.detail !== undefined ? { message: detailText(j.detail) } : null),
  message: (j) => (typeof j.message === 'string' ? { message: j.message, type: str(j.type), code: code(j.code) } : null),
};

const ALL_SHAPES = Object.keys(readers) as ErrorShape[];

/** The error fields of a parsed body, or null when it is no error this family knows. */
export function errorFields(body: unknown, shapes: readonly ErrorShape[]): VendorErrorFields | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  for (const shape of [...shapes, ...ALL_SHAPES.filter((s) => !shapes.includes(s))]) {
    const fields = readers[shape](body as Json);
    if (fields) return fields;
  }
  return null;
}

/** True when a parsed stream payload is an error rather than a chunk. */
export function isErrorPayload(j: Json): boolean {
  return j.error !== undefined && j.error !== null ? true : typeof j.object === 'string' && j.object.toLowerCase() === 'error';
}

/** A vendor's in-stream error as OpenAI's error object (JSON text). */
export function streamErrorData(j: Json, profile: VendorProfile): string {
  const f = errorFields(j, profile.errors) ?? {};
  return JSON.stringify({ error: { message: f.message ?? `${profile.name} reported an error mid-stream.`, type: f.type ?? 'upstream_error', code: f.code ?? null } });
}

export function mapCompatError(profile: VendorProfile, provider: string, status: number, headers: Record<string, string | string[] | undefined>, text: string): ApiError {
  return vendorError(provider, status, headers, errorFields(tryJson(text), profile.errors) ?? {});
}
