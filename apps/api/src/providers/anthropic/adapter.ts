// Anthropic's Messages API behind the adapter contract: the request is translated
// from OpenAI's chat-completions body, the answer and the stream are translated back.
import type { AdapterRequest, CallTarget, ChatAdapter, ChatBody } from '../types.ts';
import { anthropicHeaders, messagesUrl } from './api.ts';
import { mapAnthropicError } from './errors.ts';
import { toAnthropicRequest, unsupportedFeature } from './request.ts';
import { parseAnthropicResponse } from './response.ts';
import { anthropicStreamDecoder } from './stream.ts';

export const anthropicAdapter: ChatAdapter = {
  wire: 'anthropic',
  unsupported: (body: ChatBody, target: CallTarget) => unsupportedFeature(body, target.model),
  buildRequest(body: ChatBody, target: CallTarget, stream: boolean): AdapterRequest {
    return {
      url: messagesUrl(target.provider),
      headers: anthropicHeaders(target.apiKey, stream),
      body: JSON.stringify(toAnthropicRequest(body, target.model, stream)),
    };
  },
  parseResponse: (text: string) => parseAnthropicResponse(text),
  streamDecoder: (target: CallTarget) => anthropicStreamDecoder(target.provider.name),
  mapError: mapAnthropicError,
};
