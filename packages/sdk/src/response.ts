// The call id and headers a gateway response carries beside its body, put on the answer:
// `call_id` as a field, `headers` not enumerable (the answer still prints as its body).
import type { CallResponse } from './types.ts';

export function callResponse(headers: Headers): CallResponse {
  return { call_id: headers.get('x-optimizer-call-id'), headers };
}

export function withResponse<T extends object>(body: T, headers: Headers): T & CallResponse {
  const out = Object.assign(body, { call_id: headers.get('x-optimizer-call-id') });
  return Object.defineProperty(out, 'headers', { value: headers, enumerable: false, writable: false, configurable: true }) as T & CallResponse;
}
