// A vendor's SSE stream as OpenAI's chunks, incrementally (any byte split, UTF-8 safe).
// Each chunk is re-shaped: finish reasons in OpenAI's words, the first delta with
// role "assistant", tool calls with OpenAI's per-call indices, `type` and string
// arguments, usage taken off the content chunks. Usage, wherever the vendor put it (a
// usage-only chunk, the last content chunk, Groq's x_groq), is reported once, at [DONE],
// as OpenAI's usage-only chunk. Chunks that carry nothing in OpenAI's terms (Azure's
// prompt_filter_results opener) are dropped; errors become OpenAI error objects.
import { StringDecoder } from 'node:string_decoder';
import type { Usage } from '../../wire/usage.ts';
import { eventData, SseSplitter } from '../../wire/sse.ts';
import type { StreamDecoder, StreamEvent } from '../types.ts';
import { tryJson } from '../vendor-error.ts';
import { isErrorPayload, streamErrorData } from './errors.ts';
import type { VendorProfile } from './profile.ts';
import { argumentsText, finishReason, textOf } from './response.ts';
import { openAIUsage, usageIn } from './usage.ts';
import { VendorShapeError } from '../vendor-shape.ts';

type Json = Record<string, unknown>;

/** Per-choice state: whether the role went out, and OpenAI's index for each tool call. */
interface ChoiceState {
  roleSent: boolean;
  nextTool: number;
  byId: Map<string, number>;
  byVendorIndex: Map<number, number>;
}

interface DecoderState {
  meta: { id: unknown; created: unknown; model: unknown } | null;
  usage: Usage | null;
  choices: Map<number, ChoiceState>;
}

function choiceState(s: DecoderState, index: number): ChoiceState {
  let c = s.choices.get(index);
  if (!c) s.choices.set(index, (c = { roleSent: false, nextTool: 0, byId: new Map(), byVendorIndex: new Map() }));
  return c;
}

/**
 * OpenAI numbers tool calls 0, 1, ... with the id on each call's first delta. Some vendors
 * number every call 0 (Mistral sends parallel calls whole, all at index 0), so a new id
 * opens the next index and fragments follow the latest call at their vendor index.
 */
function toolCallDelta(tc: Json, k: number, c: ChoiceState): Json {
  const vendorIndex = typeof tc.index === 'number' ? tc.index : k;
  let index: number;
  if (typeof tc.id === 'string' && tc.id) {
    index = c.byId.get(tc.id) ?? c.nextTool++;
    c.byId.set(tc.id, index);
    c.byVendorIndex.set(vendorIndex, index);
  } else {
    index = c.byVendorIndex.get(vendorIndex) ?? c.nextTool++;
    c.byVendorIndex.set(vendorIndex, index);
  }
  const f = (tc.function ?? {}) as Json;
  const fn: Json = {};
  if (f.name !== undefined) fn.name = f.name;
  const args = argumentsText(f.arguments);
  if (args !== undefined) fn.arguments = args;
  return { index, ...(typeof tc.id === 'string' && tc.id ? { id: tc.id, type: 'function' } : {}), function: fn };
}

function choice(raw: Json, i: number, s: DecoderState, profile: VendorProfile): Json {
  const index = typeof raw.index === 'number' ? raw.index : i;
  const c = choiceState(s, index);
  const delta: Json = { ...((raw.delta ?? {}) as Json) };
  if (!c.roleSent) {
    delta.role ??= 'assistant';
    c.roleSent = true;
  }
  if (Array.isArray(delta.content)) delta.content = textOf(delta.content);
  if (Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0) delta.tool_calls = (delta.tool_calls as Json[]).map((tc, k) => toolCallDelta(tc, k, c));
  else delete delta.tool_calls; // Together sends null, others []
  return { ...raw, index, delta, finish_reason: finishReason(raw.finish_reason, profile) };
}

function usageChunk(s: DecoderState, usage: Usage): string {
  const m = s.meta ?? { id: null, created: null, model: null };
  return JSON.stringify({ id: m.id, object: 'chat.completion.chunk', created: m.created, model: m.model, choices: [], usage: openAIUsage(usage) });
}

/** One vendor payload: zero or more events. */
function decodePayload(data: string, s: DecoderState, profile: VendorProfile): StreamEvent[] {
  const j = tryJson(data) as Json | null;
  if (!j || typeof j !== 'object' || Array.isArray(j)) throw new VendorShapeError('a stream event that is not a JSON object', data);
  if (isErrorPayload(j)) return [{ kind: 'error', data: streamErrorData(j, profile) }];
  const usage = usageIn(j, profile.usage);
  if (usage) s.usage = usage;
  // a chunk has a list of choices (a usage-only one may have none, or no list at all)
  if (j.choices !== undefined && !Array.isArray(j.choices)) throw new VendorShapeError('a stream event whose choices are not a list', data);
  if (j.choices === undefined && !usage) throw new VendorShapeError('a stream event without choices', data);
  const choices = Array.isArray(j.choices) ? (j.choices as Json[]) : [];
  if (choices.some((c) => !c || typeof c !== 'object')) throw new VendorShapeError('a stream choice that is not an object', data);
  if (choices.length === 0) return [];
  if (!s.meta && j.id) s.meta = { id: j.id, created: j.created, model: j.model };
  const m = s.meta ?? { id: j.id, created: j.created, model: j.model };
  const out: Json = { ...j, id: j.id || m.id, object: 'chat.completion.chunk', created: j.created || m.created, model: j.model || m.model };
  out.choices = choices.map((c, i) => choice(c, i, s, profile));
  delete out.usage;
  delete out.x_groq;
  return [{ kind: 'chunk', data: JSON.stringify(out) }];
}

export function compatStreamDecoder(profile: VendorProfile): StreamDecoder {
  const text = new StringDecoder('utf8');
  const splitter = new SseSplitter();
  const s: DecoderState = { meta: null, usage: null, choices: new Map() };
  const flushUsage = (): StreamEvent[] => {
    if (!s.usage) return [];
    const ev: StreamEvent = { kind: 'usage', usage: s.usage, data: usageChunk(s, s.usage) };
    s.usage = null;
    return [ev];
  };
  const decode = (events: string[]): StreamEvent[] => {
    const out: StreamEvent[] = [];
    for (const ev of events) {
      const data = eventData(ev);
      if (data === null) continue; // comments (": OPENROUTER PROCESSING") and empty events
      if (data.trim() === '[DONE]') out.push(...flushUsage(), { kind: 'done' });
      else out.push(...decodePayload(data, s, profile));
    }
    return out;
  };
  return {
    push: (bytes) => decode(splitter.push(text.write(bytes))),
    end: () => {
      const rest = splitter.push(text.end()).concat(splitter.rest().trim() ? [splitter.rest()] : []);
      return [...decode(rest), ...flushUsage()];
    },
  };
}
