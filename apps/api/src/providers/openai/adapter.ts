// OpenAI's Chat Completions: the request goes out as the client sent it (the
// `optimizer` annotation already removed), the answer comes back unchanged, and
// streams pass through chunk by chunk without re-serialising.
import type { AdapterRequest, CallTarget, ChatAdapter, ChatBody, ParsedCompletion, StreamDecoder, StreamEvent } from '../types.ts';
import { SseSplitter, eventData } from '../../wire/sse.ts';
import { usageFromOpenAI } from '../../wire/usage.ts';
import { tryJson, vendorError } from '../vendor-error.ts';
import { serialize } from '../../wire/serialized.ts';
import { urlOf } from '../url.ts';
import { VendorShapeError } from '../vendor-shape.ts';

/** Adds stream_options.include_usage so the call is metered from the vendor's own count. */
export function withUsageRequested(body: ChatBody): ChatBody {
  if (body.stream !== true) return body;
  const opts = (body.stream_options ?? {}) as Record<string, unknown>;
  return opts.include_usage === true ? body : { ...body, stream_options: { ...opts, include_usage: true } };
}

/**
 * The HTTP request for a chat call. `requestUsage` false sends the body as given: the
 * OpenAI-compatible family asks for usage itself, before mapping fields to its vendor.
 */
export function openAIRequest(url: URL, headers: Record<string, string>, body: ChatBody, stream: boolean, requestUsage = true): AdapterRequest {
  return {
    url,
    headers: { 'content-type': 'application/json', accept: stream ? 'text/event-stream' : 'application/json', ...headers },
    body: serialize(requestUsage ? withUsageRequested(body) : body),
  };
}

/** What the gateway reads of a chat.completion: a list of choices, each with a message object. */
export function assertCompletionShape(j: unknown, raw: string): asserts j is { choices: { message: Record<string, unknown> }[]; usage?: unknown } {
  if (!j || typeof j !== 'object' || Array.isArray(j)) throw new VendorShapeError('not a JSON object', raw);
  const choices = (j as { choices?: unknown }).choices;
  if (!Array.isArray(choices) || choices.length === 0) throw new VendorShapeError('no choices', raw);
  for (const c of choices as unknown[]) {
    const m = c && typeof c === 'object' ? (c as { message?: unknown }).message : undefined;
    if (!m || typeof m !== 'object' || Array.isArray(m)) throw new VendorShapeError('a choice without a message', raw);
    const content = (m as { content?: unknown }).content;
    if (content !== undefined && content !== null && typeof content !== 'string' && !Array.isArray(content)) throw new VendorShapeError('a message whose content is not text', raw);
  }
}

export function parseOpenAIResponse(text: string): ParsedCompletion {
  const parsed = tryJson(text) as unknown;
  assertCompletionShape(parsed, text);
  return { text, usage: usageFromOpenAI(parsed.usage) };
}

const ERROR_START = /^\{\s*"error"\s*:/;
/** A chunk that carries usage (with include_usage every chunk has `"usage":null` until the last). */
const USAGE_OBJECT = /"usage"\s*:\s*\{/;
/** A chat.completion.chunk is an object with a list of choices: checked without parsing (chunks pass through as text). */
const OBJECT_START = /^\s*\{/;

/** OpenAI's SSE, passed through as raw text; only usage chunks are parsed. */
export function openAIStreamDecoder(): StreamDecoder {
  const splitter = new SseSplitter();
  const decode = (events: string[]): StreamEvent[] => {
    const out: StreamEvent[] = [];
    for (const ev of events) {
      const data = eventData(ev);
      if (data === null) continue;
      if (data === '[DONE]') {
        out.push({ kind: 'done' });
        continue;
      }
      if (ERROR_START.test(data)) {
        out.push({ kind: 'error', data });
        continue;
      }
      if (!OBJECT_START.test(data) || !data.includes('"choices"')) throw new VendorShapeError('a stream event that is not a chat.completion.chunk', data);
      if (data.includes('"usage"') && USAGE_OBJECT.test(data)) {
        const j = tryJson(data) as { usage?: unknown; choices?: unknown[] } | null;
        const usage = usageFromOpenAI(j?.usage);
        if (usage) {
          if (!j!.choices || j!.choices.length === 0) {
            out.push({ kind: 'usage', usage, data });
            continue;
          }
          out.push({ kind: 'usage', usage });
        }
      }
      out.push({ kind: 'chunk', data });
    }
    return out;
  };
  return {
    push: (bytes) => decode(splitter.push(bytes)),
    end: () => decode(splitter.rest().trim() ? [splitter.rest()] : []),
  };
}

export function mapOpenAIError(status: number, headers: Record<string, string | string[] | undefined>, text: string, target: CallTarget) {
  const j = tryJson(text) as { error?: { message?: string; type?: string; code?: string | null; param?: string | null } } | null;
  const e = j && typeof j.error === 'object' && j.error ? j.error : {};
  return vendorError(target.provider.name, status, headers, e);
}

export const openaiAdapter: ChatAdapter = {
  wire: 'openai',
  unsupported: () => null,
  buildRequest(body: ChatBody, target: CallTarget, stream: boolean): AdapterRequest {
    return openAIRequest(urlOf(`${target.provider.baseUrl}/chat/completions`), { authorization: `Bearer ${target.apiKey}` }, body, stream);
  },
  parseResponse: parseOpenAIResponse,
  streamDecoder: openAIStreamDecoder,
  mapError: mapOpenAIError,
};
