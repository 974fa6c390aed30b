// The JSON body parser both servers use (Fastify's content-type parser and the socket
// path): empty means no body, unparsable is `invalid_json`, and a document nested deeper
// than MAX_JSON_DEPTH is `json_too_deep`, refused here before any stage walks it (a
// recursive walk of 5,000 levels overflows the stack).
import { ApiError } from '../errors.ts';

export const MAX_JSON_DEPTH = 128;

export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw new ApiError('invalid_json', 'The request body is not valid JSON.');
  }
  if (tooDeep(value)) throw new ApiError('json_too_deep');
  return value;
}

/** Whether any value nests more than MAX_JSON_DEPTH objects or arrays deep (no recursion). */
function tooDeep(root: unknown): boolean {
  if (root === null || typeof root !== 'object') return false;
  const stack: unknown[] = [root];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const v = stack.pop() as object;
    const depth = depths.pop()!;
    if (depth > MAX_JSON_DEPTH) return true;
    if (Array.isArray(v)) {
      for (const item of v) {
        if (item !== null && typeof item === 'object') {
          stack.push(item);
          depths.push(depth + 1);
        }
      }
    } else {
      for (const k in v) {
        const item = (v as Record<string, unknown>)[k];
        if (item !== null && typeof item === 'object') {
          stack.push(item);
          depths.push(depth + 1);
        }
      }
    }
  }
  return false;
}
