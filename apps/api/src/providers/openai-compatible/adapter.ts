// The OpenAI-compatible family: one adapter for every vendor that speaks OpenAI's chat
// completions with differences, each difference read from the vendor's profile
// (vendors.ts). The `openai` wire picks per provider: a profiled vendor goes through the
// family, OpenAI itself (and an admin-registered OpenAI-compatible endpoint without a
// profile) through the plain OpenAI adapter, unchanged.
import type { AdapterRequest, CallTarget, ChatAdapter, ChatBody } from '../types.ts';
import { openaiAdapter, openAIRequest, withUsageRequested } from '../openai/adapter.ts';
import { mapCompatError } from './errors.ts';
import { refusal, vendorBody } from './params.ts';
import type { VendorProfile } from './profile.ts';
import { parseCompletion } from './response.ts';
import { compatStreamDecoder } from './stream.ts';
import { profileFor } from './vendors.ts';
import { urlOf } from '../url.ts';

function profileOf(target: CallTarget): VendorProfile {
  const p = profileFor(target.provider.name);
  if (!p) throw new Error(`No OpenAI-compatible profile for provider ${target.provider.name}.`);
  return p;
}

export function authHeaders(profile: VendorProfile, apiKey: string): Record<string, string> {
  switch (profile.auth) {
    case 'api-key':
      return { 'api-key': apiKey };
    case 'bearer-if-key':
      return apiKey ? { authorization: `Bearer ${apiKey}` } : {};
    case 'bearer':
      return { authorization: `Bearer ${apiKey}` };
  }
}

export const openaiCompatibleAdapter: ChatAdapter = {
  wire: 'openai',
  unsupported: (body, target) => refusal(profileOf(target), body, target.model),
  buildRequest(body: ChatBody, target: CallTarget, stream: boolean): AdapterRequest {
    const profile = profileOf(target);
    const options = target.provider.options ?? {};
    const url = urlOf(profile.url(target.provider.baseUrl, target.model, options));
    const headers = { ...authHeaders(profile, target.apiKey), ...profile.headers?.(options) };
    // Usage is asked for first, in OpenAI's terms; the vendor's table then keeps, renames or drops it.
    const mapped = vendorBody(profile, withUsageRequested(body), target.model) as ChatBody;
    return openAIRequest(url, headers, mapped, stream, false);
  },
  parseResponse: (text, target) => parseCompletion(text, profileOf(target)),
  streamDecoder: (target) => compatStreamDecoder(profileOf(target)),
  mapError: (status, headers, text, target) => mapCompatError(profileOf(target), target.provider.name, status, headers, text),
};

/** The adapter serving one call on the `openai` wire. */
export function openAIWireAdapterFor(target: CallTarget): ChatAdapter {
  return profileFor(target.provider.name) ? openaiCompatibleAdapter : openaiAdapter;
}

/** The `openai` wire's adapter: each call goes to the plain or the family adapter by provider. */
export const openaiWireAdapter: ChatAdapter = {
  wire: 'openai',
  unsupported: (body, target) => openAIWireAdapterFor(target).unsupported(body, target),
  buildRequest: (body, target, stream) => openAIWireAdapterFor(target).buildRequest(body, target, stream),
  parseResponse: (text, target) => openAIWireAdapterFor(target).parseResponse(text, target),
  streamDecoder: (target) => openAIWireAdapterFor(target).streamDecoder(target),
  mapError: (status, headers, text, target) => openAIWireAdapterFor(target).mapError(status, headers, text, target),
};
