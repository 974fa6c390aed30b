// OpenAI messages → Anthropic's `system` and strictly alternating user/assistant
// turns. System and developer messages become the top-level `system`; a tool result
// becomes a `tool_result` block in a user turn (right after the assistant's
// `tool_use`); consecutive same-role turns merge, with tool results first in a user
// turn as Anthropic requires. A message `name` and an image's `detail` have no
// Anthropic counterpart and are not sent.
import { refuse } from './unsupported.ts';
import type { AnthropicMessage, ContentBlock, ImageBlock, TextBlock, ToolResultBlock, ToolUseBlock } from './wire.ts';

type Json = Record<string, unknown>;

export interface TranslatedMessages {
  system?: string | TextBlock[];
  messages: AnthropicMessage[];
}

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/** Anthropic tool ids match ^[a-zA-Z0-9_-]+$; the same mapping is applied to tool_use ids and tool_result references. */
export function toolId(id: unknown): string {
  if (typeof id !== 'string' || id === '') refuse('a tool call or tool result without an id');
  return id.replace(/[^a-zA-Z0-9_-]/g, '_');
}

function parts(content: unknown): Json[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (content === null || content === undefined) return [];
  if (!Array.isArray(content)) refuse('message content that is neither text nor a list of parts');
  return content as Json[];
}

function text(value: unknown): TextBlock[] {
  return typeof value === 'string' && value !== '' ? [{ type: 'text', text: value }] : [];
}

/** The text of a system, developer or tool message: text parts only. */
function plainText(content: unknown, what: string): string {
  return parts(content)
    .map((p) => (p.type === 'text' ? String(p.text ?? '') : refuse(`a "${String(p.type)}" part in a ${what} message`)))
    .join('');
}

function image(part: Json): ImageBlock {
  const url = (part.image_url as Json | undefined)?.url;
  if (typeof url !== 'string') refuse('an image part without a URL');
  const data = DATA_URL.exec(url);
  if (data) {
    const mediaType = data[1]!.toLowerCase();
    if (!IMAGE_TYPES.has(mediaType)) refuse(`an image of type ${mediaType} (Anthropic reads JPEG, PNG, GIF and WebP)`);
    return { type: 'image', source: { type: 'base64', media_type: mediaType, data: data[2]! } };
  }
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  return refuse('an image URL that is neither https nor a base64 data: URL');
}

function file(part: Json): ContentBlock {
  const f = (part.file ?? {}) as Json;
  if (typeof f.file_data !== 'string') return refuse('a file part by file_id (send file_data)');
  const data = DATA_URL.exec(f.file_data);
  if (!data || data[1] !== 'application/pdf') return refuse('a file other than a base64 PDF');
  return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: data[2]! }, ...(typeof f.filename === 'string' ? { title: f.filename } : {}) };
}

function userBlocks(content: unknown): ContentBlock[] {
  return parts(content).flatMap((p): ContentBlock[] => {
    switch (p.type) {
      case 'text':
        return text(p.text);
      case 'image_url':
        return [image(p)];
      case 'file':
        return [file(p)];
      case 'input_audio':
        return refuse('audio input');
      default:
        return refuse(`a "${String(p.type)}" content part`);
    }
  });
}

function toolUse(call: Json): ToolUseBlock {
  if (call.type !== undefined && call.type !== 'function') refuse(`a "${String(call.type)}" tool call`);
  const fn = (call.function ?? {}) as Json;
  const args = typeof fn.arguments === 'string' ? fn.arguments.trim() : '';
  let input: unknown = {};
  if (args !== '') {
    try {
      input = JSON.parse(args);
    } catch {
      refuse(`tool call arguments that are not JSON (${String(call.id)})`);
    }
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) refuse(`tool call arguments that are not a JSON object (${String(call.id)})`);
  return { type: 'tool_use', id: toolId(call.id), name: String(fn.name ?? ''), input };
}

function assistantBlocks(m: Json): ContentBlock[] {
  if (m.function_call) refuse('an assistant function_call (the legacy form of tool_calls)');
  const said = parts(m.content).flatMap((p): TextBlock[] =>
    p.type === 'text' ? text(p.text) : p.type === 'refusal' ? text(p.refusal) : refuse(`a "${String(p.type)}" part in an assistant message`),
  );
  const calls = Array.isArray(m.tool_calls) ? (m.tool_calls as Json[]).map(toolUse) : [];
  return [...said, ...calls];
}

function toolResult(m: Json): ToolResultBlock {
  const content = plainText(m.content, 'tool');
  return { type: 'tool_result', tool_use_id: toolId(m.tool_call_id), ...(content !== '' ? { content } : {}) };
}

/** Tool results lead a user turn; the relative order of everything else is kept. */
function resultsFirst(blocks: ContentBlock[]): ContentBlock[] {
  return [...blocks.filter((b) => b.type === 'tool_result'), ...blocks.filter((b) => b.type !== 'tool_result')];
}

/** Anthropic refuses a final (prefilled) assistant turn that ends in whitespace. */
function trimPrefill(turns: AnthropicMessage[]): void {
  const last = turns.at(-1);
  const block = last?.role === 'assistant' ? last.content.at(-1) : undefined;
  if (block?.type !== 'text') return;
  block.text = block.text.trimEnd();
  if (block.text !== '') return;
  last!.content.pop();
  if (last!.content.length === 0) turns.pop();
}

export function translateMessages(messages: Json[]): TranslatedMessages {
  const system: string[] = [];
  const turns: AnthropicMessage[] = [];
  const push = (role: AnthropicMessage['role'], blocks: ContentBlock[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  for (const m of messages) {
    switch (m.role) {
      case 'system':
      case 'developer':
        system.push(plainText(m.content, String(m.role)));
        break;
      case 'user':
        push('user', userBlocks(m.content));
        break;
      case 'assistant':
        push('assistant', assistantBlocks(m));
        break;
      case 'tool':
        push('user', [toolResult(m)]);
        break;
      case 'function':
        refuse('function-role messages (the legacy form of tool results)');
        break;
      default:
        refuse(`a message with role "${String(m.role)}"`);
    }
  }
  for (const t of turns) if (t.role === 'user') t.content = resultsFirst(t.content);
  trimPrefill(turns);
  if (turns.length === 0) refuse('a conversation with no non-empty user message');
  if (turns[0]!.role !== 'user') refuse('a conversation that starts with an assistant message (Anthropic needs a user turn first)');
  const texts = system.filter((s) => s !== '');
  return {
    ...(texts.length === 1 ? { system: texts[0]! } : texts.length > 1 ? { system: texts.map((t): TextBlock => ({ type: 'text', text: t })) } : {}),
    messages: turns,
  };
}
