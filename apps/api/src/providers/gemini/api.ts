// Gemini API (Google Generative Language) endpoints and auth. The key travels in the
// `x-goog-api-key` header, never in the URL, so it stays out of proxy and access logs.
import type { CallTarget } from '../types.ts';
import { modelPath } from '../model-id.ts';
import { urlOf } from '../url.ts';

/** `models/gemini-2.5-flash` for a bare name; a full resource name (`tunedModels/x`) is kept; a name that is not an identifier is refused. */
export function modelResource(model: string): string {
  return modelPath(model.includes('/') ? model : `models/${model}`);
}

/** `POST {base}/models/{model}:generateContent`, or `:streamGenerateContent?alt=sse` for SSE framing. */
export function geminiUrl(baseUrl: string, model: string, stream: boolean): URL {
  const method = stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
  return urlOf(`${baseUrl}/${modelResource(model)}:${method}`);
}

export function geminiHeaders(target: CallTarget, stream: boolean): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
    'x-goog-api-key': target.apiKey,
  };
}
