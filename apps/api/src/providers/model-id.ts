// A model name is an identifier before it is anything else. Some vendors put it in the
// URL path (Gemini's `models/{model}`, Azure's `deployments/{model}`, Bedrock's
// `model/{modelId}`), so a name with `..` segments, an encoded dot, a query or control
// characters could otherwise leave the vendor's base path with the platform's key. Names
// are checked on every provider, whatever the vendor does with them, and the checked
// segments are percent-encoded where they become a path.
import { ApiError } from '../errors.ts';

/** One segment: starts with a letter or digit, then letters, digits and `. _ - : @ +`. */
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._:@+-]*$/;
export const MAX_MODEL_NAME_LENGTH = 256;

/** True when `model` is segments of identifier characters joined by single slashes. */
export function isModelId(model: string): boolean {
  if (model.length === 0 || model.length > MAX_MODEL_NAME_LENGTH) return false;
  for (const segment of model.split('/')) if (!SEGMENT.test(segment)) return false;
  return true;
}

/** Refuses (400, param `model`) a name that is not an identifier. */
export function assertModelId(model: string): string {
  if (!isModelId(model)) {
    throw new ApiError('invalid_request', 'The model name is not a valid identifier: use letters, digits and . _ - : @ +, in segments joined by /.', { param: 'model' });
  }
  return model;
}

/** The name as one path segment (its slashes encoded), once checked. */
export function modelSegment(model: string): string {
  return encodeURIComponent(assertModelId(model));
}

/** The name as a path of segments (slashes kept), once checked. */
export function modelPath(model: string): string {
  return assertModelId(model).split('/').map(encodeURIComponent).join('/');
}

/** A model name is printable ASCII: it is echoed in a response header, where CR, LF, NUL or a non-Latin-1 character would fail or split it. */
const NOT_PRINTABLE_ASCII = /[^\x20-\x7e]/;

/**
 * Refuses (400, param `model`) a requested name no model can have, before anything reads it:
 * longer than an identifier may be (a long name would be echoed in the refusal and compared
 * against every catalog name), or not printable ASCII. Chat and embeddings both ask this first.
 */
export function assertModelName(model: string): void {
  if (model.length > MAX_MODEL_NAME_LENGTH) throw new ApiError('invalid_request', `model: a model name is at most ${MAX_MODEL_NAME_LENGTH} characters.`, { param: 'model' });
  if (NOT_PRINTABLE_ASCII.test(model)) throw new ApiError('invalid_request', 'model: a model name is printable ASCII (no CR, LF, NUL or other control or non-ASCII characters).', { param: 'model' });
}
