// OpenAI `messages` → Gemini `systemInstruction` + `contents`. System and developer
// messages become the system instruction; user and tool messages user turns; assistant
// messages model turns; consecutive turns of one role merge into one, as Gemini wants.
import { isRecord } from './guards.ts';

type Json = Record<string, unknown>;
export type GeminiPart = Json;
export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

export type Converted = { ok: true; systemInstruction: { parts: GeminiPart[] } | null; contents: GeminiContent[] } | { ok: false; problem: string };

/** The Gemini part for an OpenAI content part, or the phrase naming why there is none. */
type PartRule = (part: Json) => GeminiPart | string;

const AUDIO_MIME: Readonly<Record<string, string>> = { wav: 'audio/wav', mp3: 'audio/mp3' };

const TEXT: PartRule = (p) => (typeof p.text === 'string' ? { text: p.text } : 'a text part without text');

/** Per role, the content-part types it may carry. */
const PART_RULES: Readonly<Record<'system' | 'user' | 'assistant' | 'tool', Readonly<Record<string, PartRule>>>> = {
  system: { text: TEXT },
  tool: { text: TEXT },
  assistant: { text: TEXT, refusal: (p) => (typeof p.refusal === 'string' ? { text: p.refusal } : 'a refusal part without text') },
  user: {
    text: TEXT,
    // Only inline images: Gemini's fileData takes Files-API and YouTube URIs, not arbitrary web
    // URLs, and fetching the image here would let a request body make the gateway call any host.
    image_url: (p) => {
      const url = isRecord(p.image_url) ? p.image_url.url : undefined;
      const inline = typeof url === 'string' ? inlineData(url) : null;
      // `detail` is a resolution hint with no per-image Gemini equivalent.
      return inline ?? 'image URLs that are not base64 data: URLs (send the image inline as data:image/...;base64,...)';
    },
    input_audio: (p) => {
      const a = isRecord(p.input_audio) ? p.input_audio : {};
      const mimeType = AUDIO_MIME[String(a.format)];
      if (!mimeType || typeof a.data !== 'string') return `input_audio in format "${String(a.format)}"`;
      return { inlineData: { mimeType, data: a.data } };
    },
    file: (p) => {
      const f = isRecord(p.file) ? p.file : {};
      const inline = typeof f.file_data === 'string' ? inlineData(f.file_data) : null;
      return inline ?? 'file parts without inline file_data (file_id is OpenAI storage)';
    },
  },
};

/**
 * Models that reject a replayed function call without a thought signature. OpenAI's
 * format cannot carry Gemini's signature back, so those calls carry Google's documented
 * placeholder that skips the check.
 */
export const SIGNATURE_REQUIRED: readonly RegExp[] = [/^(models\/)?gemini-3/];
export const SKIP_SIGNATURE = 'skip_thought_signature_validator';

export function convertMessages(messages: unknown, model: string): Converted {
  if (!Array.isArray(messages)) return { ok: false, problem: 'messages that is not an array' };
  const system: GeminiPart[] = [];
  const turns: GeminiContent[] = [];
  const callNames = new Map<string, string>();
  const sign = SIGNATURE_REQUIRED.some((re) => re.test(model));

  for (const m of messages) {
    if (!isRecord(m)) return { ok: false, problem: 'a message that is not an object' };
    const role = m.role;
    if (role === 'system' || role === 'developer') {
      const parts = contentParts(m.content, 'system');
      if (typeof parts === 'string') return { ok: false, problem: parts };
      system.push(...parts);
    } else if (role === 'user') {
      const parts = contentParts(m.content, 'user');
      if (typeof parts === 'string') return { ok: false, problem: parts };
      turns.push({ role: 'user', parts });
    } else if (role === 'assistant') {
      const parts = contentParts(m.content, 'assistant');
      if (typeof parts === 'string') return { ok: false, problem: parts };
      const calls = functionCalls(m.tool_calls, callNames, sign);
      if (typeof calls === 'string') return { ok: false, problem: calls };
      turns.push({ role: 'model', parts: [...parts, ...calls] });
    } else if (role === 'tool') {
      const part = functionResponse(m, callNames);
      if (typeof part === 'string') return { ok: false, problem: part };
      turns.push({ role: 'user', parts: [part] });
    } else {
      return { ok: false, problem: `messages with role "${String(role)}"` };
    }
  }
  return { ok: true, systemInstruction: system.length > 0 ? { parts: system } : null, contents: merge(turns) };
}

function contentParts(content: unknown, role: keyof typeof PART_RULES): GeminiPart[] | string {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  if (!Array.isArray(content)) return 'message content that is neither text nor a list of parts';
  const out: GeminiPart[] = [];
  for (const p of content) {
    const rule = isRecord(p) ? PART_RULES[role][String(p.type)] : undefined;
    if (!rule) return `${isRecord(p) ? String(p.type) : 'untyped'} parts in ${role} messages`;
    const part = rule(p as Json);
    if (typeof part === 'string') return part;
    if (part.text !== '') out.push(part);
  }
  return out;
}

function functionCalls(toolCalls: unknown, names: Map<string, string>, sign: boolean): GeminiPart[] | string {
  if (toolCalls === null || toolCalls === undefined) return [];
  if (!Array.isArray(toolCalls)) return 'tool_calls that is not a list';
  const out: GeminiPart[] = [];
  for (const c of toolCalls) {
    if (!isRecord(c) || !isRecord(c.function) || typeof c.function.name !== 'string') return 'a tool call without a function name';
    const args = parseArgs(c.function.arguments);
    if (args === null) return 'tool call arguments that are not a JSON object';
    if (typeof c.id === 'string') names.set(c.id, c.function.name);
    const part: GeminiPart = { functionCall: { name: c.function.name, args } };
    if (sign && out.length === 0) part.thoughtSignature = SKIP_SIGNATURE;
    out.push(part);
  }
  return out;
}

function parseArgs(text: unknown): Json | null {
  if (text === undefined || text === null || text === '') return {};
  if (typeof text !== 'string') return null;
  try {
    const v: unknown = JSON.parse(text);
    return isRecord(v) ? v : null;
  } catch {
    return null;
  }
}

/**
 * A tool result as Gemini's functionResponse. Its `response` must be an object: a JSON
 * object result is sent as is, anything else under `output` (Gemini's documented key).
 */
function functionResponse(m: Json, names: Map<string, string>): GeminiPart | string {
  const name = typeof m.tool_call_id === 'string' ? names.get(m.tool_call_id) : undefined;
  if (!name) return 'a tool message whose tool_call_id matches no earlier tool call';
  const parts = contentParts(m.content, 'tool');
  if (typeof parts === 'string') return parts;
  const text = parts.map((p) => String(p.text)).join('');
  let value: unknown = text;
  try {
    value = JSON.parse(text);
  } catch {
    /* plain text result */
  }
  return { functionResponse: { name, response: isRecord(value) ? value : { output: value } } };
}

function merge(turns: GeminiContent[]): GeminiContent[] {
  const out: GeminiContent[] = [];
  for (const t of turns) {
    if (t.parts.length === 0) continue;
    const prev = out.at(-1);
    if (prev && prev.role === t.role) prev.parts.push(...t.parts);
    else out.push({ role: t.role, parts: [...t.parts] });
  }
  return out;
}

const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+)((?:;[\w.+-]+=[^;,]*)*);base64,([A-Za-z0-9+/=\s_-]*)$/;

/** `data:<mime>;base64,<data>` → inlineData; anything else (http URLs, percent-encoded data) → null. */
export function inlineData(url: string): GeminiPart | null {
  const m = DATA_URL.exec(url);
  if (!m) return null;
  return { inlineData: { mimeType: m[1]!, data: m[3]!.replace(/\s/g, '') } };
}
