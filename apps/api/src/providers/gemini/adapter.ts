// Google's Gemini API (generateContent / streamGenerateContent) behind OpenAI's
// chat-completions format. The pieces: api.ts (URL, key header), request.ts (body),
// response.ts, stream.ts, errors.ts; params.ts holds the parameter table.
import type { AdapterRequest, CallTarget, ChatAdapter, ChatBody } from '../types.ts';
import { geminiHeaders, geminiUrl } from './api.ts';
import { mapGeminiError } from './errors.ts';
import { geminiRequestBody, requestProblem } from './request.ts';
import { parseGeminiResponse } from './response.ts';
import { geminiStreamDecoder } from './stream.ts';

export const geminiAdapter: ChatAdapter = {
  wire: 'gemini',
  unsupported: (body: ChatBody, target: CallTarget) => requestProblem(body, target.model),
  buildRequest(body: ChatBody, target: CallTarget, stream: boolean): AdapterRequest {
    return {
      url: geminiUrl(target.provider.baseUrl, target.model, stream),
      headers: geminiHeaders(target, stream),
      body: JSON.stringify(geminiRequestBody(body, target.model)),
    };
  },
  parseResponse: (text, target) => parseGeminiResponse(text, target),
  streamDecoder: (target) => geminiStreamDecoder(target),
  mapError: mapGeminiError,
};
