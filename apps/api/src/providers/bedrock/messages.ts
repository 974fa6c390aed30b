// OpenAI messages → Converse `system` and `messages`.
//
// - system and developer messages, wherever they appear, become `system` text blocks
//   in order (Converse has one system prompt, ahead of the conversation).
// - user content: text → {text}; a base64 `data:` image → {image: {format, source:
//   {bytes}}}. Converse takes no image URLs, so an http(s) image is refused, as are
//   audio and file parts. image_url.detail is a resolution hint Converse has no
//   equivalent for; the image is sent as it is.
// - assistant: text → {text}; tool_calls → {toolUse: {toolUseId, name, input}} with the
//   arguments parsed (Converse wants an object).
// - tool → {toolResult: {toolUseId, content: [{text}]}} in a user turn.
// - Consecutive turns of one role merge into one (tool results and the user text
//   after them share the user turn Converse requires after a toolUse).
// - Tool-call ids outside Converse's [a-zA-Z0-9_-]{1,64} are replaced by a stable
//   digest, identically for the toolUse and its toolResult.
import { createHash } from 'node:crypto';
import type { ContentBlock, ImageFormat, Message } from './wire.ts';

export interface Translated {
  system: { text: string }[];
  messages: Message[];
  /** Whether any toolUse / toolResult block was written (Converse then needs toolConfig). */
  hasToolBlocks: boolean;
}

export type Result<T> = { ok: true; value: T } | { ok: false; refusal: string };

class Refusal extends Error {}

const refuse = (phrase: string): never => {
  throw new Refusal(phrase);
};

const TOOL_USE_ID = /^[a-zA-Z0-9_-]{1,64}$/;
const IMAGE_FORMATS: Record<string, ImageFormat> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/jpg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp' };
const DATA_URL = /^data:([a-z]+\/[a-z0-9.+-]+);base64,(.*)$/is;

export function toolUseId(id: string): string {
  return TOOL_USE_ID.test(id) ? id : `tooluse_${createHash('sha256').update(id).digest('hex').slice(0, 40)}`;
}

function textParts(content: unknown, where: string): string[] {
  if (typeof content === 'string') return [content];
  if (content === null || content === undefined) return [];
  if (!Array.isArray(content)) return refuse(`${where} content that is neither text nor a list of parts`);
  return content.map((p: any) => {
    if (p?.type === 'text' && typeof p.text === 'string') return p.text;
    if (p?.type === 'refusal' && typeof p.refusal === 'string') return p.refusal;
    return refuse(`${p?.type ?? 'unknown'} parts in ${where} messages`);
  });
}

function imageBlock(part: any): ContentBlock {
  const url = typeof part.image_url === 'string' ? part.image_url : part.image_url?.url;
  if (typeof url !== 'string') return refuse('an image_url part without a url');
  const m = DATA_URL.exec(url);
  if (!m) {
    return /^https?:/i.test(url) ? refuse('image URLs (Converse takes images only inline: send a base64 data: URL)') : refuse('an image_url that is not a data: URL');
  }
  const format = IMAGE_FORMATS[m[1]!.toLowerCase()];
  if (!format) return refuse(`${m[1]} images (Converse takes png, jpeg, gif and webp)`);
  return { image: { format, source: { bytes: m[2]!.replace(/\s+/g, '') } } };
}

function userBlocks(content: unknown): ContentBlock[] {
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  if (!Array.isArray(content)) return refuse('user content that is neither text nor a list of parts');
  return content.flatMap((p: any): ContentBlock[] => {
    if (p?.type === 'text' && typeof p.text === 'string') return p.text === '' ? [] : [{ text: p.text }];
    if (p?.type === 'image_url') return [imageBlock(p)];
    if (p?.type === 'input_audio') return refuse('audio input');
    if (p?.type === 'file') return refuse('file parts');
    return refuse(`${p?.type ?? 'unknown'} parts in user messages`);
  });
}

function toolInput(args: unknown): unknown {
  if (args === undefined || args === '') return {};
  if (typeof args !== 'string') return refuse('tool call arguments that are not JSON text');
  try {
    const input = JSON.parse(args) as unknown;
    if (typeof input === 'object' && input !== null && !Array.isArray(input)) return input;
  } catch {
    /* refused below */
  }
  return refuse('tool call arguments that are not a JSON object (Converse sends tool input as an object)');
}

function assistantBlocks(m: Record<string, any>): ContentBlock[] {
  if (m.audio) return refuse('assistant audio in the conversation');
  if (m.function_call) return refuse('function_call in the conversation (send tool_calls instead)');
  const blocks: ContentBlock[] = textParts(m.content, 'assistant')
    .filter((t) => t !== '')
    .map((text) => ({ text }));
  for (const call of (m.tool_calls ?? []) as any[]) {
    if (call?.type !== undefined && call.type !== 'function') return refuse(`${String(call.type)} tool calls`);
    if (typeof call?.id !== 'string' || typeof call.function?.name !== 'string') return refuse('a tool call without an id or function name');
    blocks.push({ toolUse: { toolUseId: toolUseId(call.id), name: call.function.name, input: toolInput(call.function.arguments) } });
  }
  return blocks;
}

function toolResultBlock(m: Record<string, any>): ContentBlock {
  if (typeof m.tool_call_id !== 'string') return refuse('a tool message without tool_call_id');
  const text = textParts(m.content, 'tool').join('');
  return { toolResult: { toolUseId: toolUseId(m.tool_call_id), content: text === '' ? [] : [{ text }] } };
}

function translate(input: Record<string, any>[]): Translated {
  const system: { text: string }[] = [];
  const messages: Message[] = [];
  let hasToolBlocks = false;
  const push = (role: Message['role'], blocks: ContentBlock[]) => {
    if (blocks.length === 0) return;
    const last = messages.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const m of input) {
    // On a tool result the name only repeats what tool_call_id identifies (LangChain sends it): ignored.
    // On other turns it names a participant, which Converse has no place for: refused.
    if (m.role !== 'tool' && m.name !== undefined && m.name !== null) refuse('the name field on messages');
    switch (m.role) {
      case 'system':
      case 'developer':
        for (const text of textParts(m.content, m.role)) if (text !== '') system.push({ text });
        break;
      case 'user':
        push('user', userBlocks(m.content));
        break;
      case 'assistant': {
        const blocks = assistantBlocks(m);
        hasToolBlocks ||= blocks.some((b) => 'toolUse' in b);
        push('assistant', blocks);
        break;
      }
      case 'tool':
        hasToolBlocks = true;
        push('user', [toolResultBlock(m)]);
        break;
      default:
        refuse(`${String(m.role)} messages`);
    }
  }
  return { system, messages, hasToolBlocks };
}

export function translateMessages(input: Record<string, any>[]): Result<Translated> {
  try {
    return { ok: true, value: translate(input) };
  } catch (e) {
    if (e instanceof Refusal) return { ok: false, refusal: e.message };
    throw e;
  }
}
