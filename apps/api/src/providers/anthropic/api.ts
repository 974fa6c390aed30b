// Anthropic's Messages API: where a call goes and the headers it carries. The key
// rides in `x-api-key` (not a bearer token) and every call names the API version.
import type { ProviderInfo } from '../types.ts';
import { urlOf } from '../url.ts';

/** The Messages API version the adapter speaks (request, response and stream shapes). */
export const ANTHROPIC_VERSION = '2023-06-01';

/** POST {baseUrl}/messages; the base URL carries the `/v1` suffix (registry default https://api.anthropic.com/v1). */
export function messagesUrl(provider: ProviderInfo): URL {
  return urlOf(`${provider.baseUrl}/messages`);
}

export function anthropicHeaders(apiKey: string, stream: boolean): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
    'x-api-key': apiKey,
    'anthropic-version': ANTHROPIC_VERSION,
  };
}
