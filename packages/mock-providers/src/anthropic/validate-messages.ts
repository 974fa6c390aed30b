// The conversation rules of the Messages API: user and assistant turns only (system is
// a top-level field), starting with the user and alternating, non-empty content, known
// content blocks, and every tool_use answered by tool_result blocks at the start of the
// very next user turn (and no tool_result without its tool_use).
import { isRecord, type JsonObject } from '../guards.ts';
import { invalidRequest, type AnthropicError } from './errors.ts';

const BLOCK_TYPES = ['text', 'image', 'document', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking'];
const MESSAGE_FIELDS = new Set(['role', 'content']);
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
const TOOL_ID = /^[a-zA-Z0-9_-]+$/;

function blocksOf(message: JsonObject): JsonObject[] {
  return Array.isArray(message.content) ? (message.content as JsonObject[]) : [];
}

function validateBlock(block: unknown, role: string, at: string): AnthropicError | null {
  if (!isRecord(block)) return invalidRequest(`${at}: Input should be a valid dictionary`);
  if (!BLOCK_TYPES.includes(block.type as string)) {
    return invalidRequest(`${at}: Input tag '${String(block.type)}' found using 'type' does not match any of the expected tags: ${BLOCK_TYPES.map((t) => `'${t}'`).join(', ')}`);
  }
  switch (block.type) {
    case 'text':
      if (typeof block.text !== 'string') return invalidRequest(`${at}.text.text: Field required`);
      if (block.text === '') return invalidRequest('messages: text content blocks must be non-empty');
      return null;
    case 'image': {
      const s = block.source;
      if (!isRecord(s)) return invalidRequest(`${at}.image.source: Field required`);
      if (s.type === 'url') return typeof s.url === 'string' ? null : invalidRequest(`${at}.image.source.url.url: Field required`);
      if (s.type !== 'base64') return invalidRequest(`${at}.image.source: Input tag '${String(s.type)}' found using 'type' does not match any of the expected tags: 'base64', 'url', 'file'`);
      if (!IMAGE_TYPES.has(s.media_type as string)) return invalidRequest(`${at}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`);
      return typeof s.data === 'string' && s.data !== '' ? null : invalidRequest(`${at}.image.source.base64.data: Field required`);
    }
    case 'tool_use':
      if (role !== 'assistant') return invalidRequest(`${at}: tool_use blocks may only appear in assistant messages`);
      if (typeof block.id !== 'string' || !TOOL_ID.test(block.id)) return invalidRequest(`${at}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
      if (typeof block.name !== 'string' || block.name === '') return invalidRequest(`${at}.tool_use.name: Field required`);
      return isRecord(block.input) ? null : invalidRequest(`${at}.tool_use.input: Input should be a valid dictionary`);
    case 'tool_result':
      if (role !== 'user') return invalidRequest(`${at}: tool_result blocks may only appear in user messages`);
      return typeof block.tool_use_id === 'string' ? null : invalidRequest(`${at}.tool_result.tool_use_id: Field required`);
    default:
      return null;
  }
}

function validateMessage(message: unknown, i: number, last: boolean): AnthropicError | null {
  if (!isRecord(message)) return invalidRequest(`messages.${i}: Input should be a valid dictionary`);
  const unknown = Object.keys(message).find((k) => !MESSAGE_FIELDS.has(k));
  if (unknown) return invalidRequest(`messages.${i}.${unknown}: Extra inputs are not permitted`);
  if (message.role === 'system') {
    return invalidRequest('messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, not "system" as an input message role.');
  }
  if (message.role !== 'user' && message.role !== 'assistant') return invalidRequest(`messages.${i}.role: Input should be 'user' or 'assistant'`);
  const { content } = message;
  const emptyAllowed = last && message.role === 'assistant';
  if (typeof content === 'string') {
    if (content === '' && !emptyAllowed) return invalidRequest(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`);
    return null;
  }
  if (!Array.isArray(content)) return invalidRequest(`messages.${i}.content: Input should be a valid string or a list of content blocks`);
  if (content.length === 0 && !emptyAllowed) return invalidRequest(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`);
  for (let j = 0; j < content.length; j++) {
    const bad = validateBlock(content[j], message.role, `messages.${i}.content.${j}`);
    if (bad) return bad;
  }
  return null;
}

/** Checks the tool_use → tool_result pairing between message i-1 (assistant) and message i (user). */
function validatePairing(prev: JsonObject | undefined, message: JsonObject, i: number): AnthropicError | null {
  const used = prev?.role === 'assistant' ? blocksOf(prev).filter((b) => b.type === 'tool_use').map((b) => b.id as string) : [];
  const blocks = blocksOf(message);
  if (message.role === 'user') {
    for (let j = 0; j < blocks.length; j++) {
      const b = blocks[j]!;
      if (b.type === 'tool_result' && !used.includes(b.tool_use_id as string)) {
        return invalidRequest(`messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(b.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`);
      }
    }
  }
  if (used.length === 0) return null;
  const leading: string[] = [];
  for (const b of message.role === 'user' ? blocks : []) {
    if (b.type !== 'tool_result') break;
    leading.push(b.tool_use_id as string);
  }
  const missing = used.filter((id) => !leading.includes(id));
  if (missing.length === 0) return null;
  return invalidRequest(`messages.${i - 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`);
}

export function validateMessages(messages: unknown): AnthropicError | null {
  if (!Array.isArray(messages)) return invalidRequest('messages: Input should be a valid list');
  if (messages.length === 0) return invalidRequest('messages: at least one message is required');
  for (let i = 0; i < messages.length; i++) {
    const bad = validateMessage(messages[i], i, i === messages.length - 1);
    if (bad) return bad;
  }
  const list = messages as JsonObject[];
  if (list[0]!.role !== 'user') return invalidRequest('messages: first message must use the "user" role');
  for (let i = 1; i < list.length; i++) {
    if (list[i]!.role === list[i - 1]!.role) {
      return invalidRequest(`messages: roles must alternate between "user" and "assistant", but found multiple "${String(list[i]!.role)}" roles in a row`);
    }
    const bad = validatePairing(list[i - 1], list[i]!, i);
    if (bad) return bad;
  }
  const last = list.at(-1)!;
  if (last.role === 'assistant') {
    const text = typeof last.content === 'string' ? last.content : blocksOf(last).filter((b) => b.type === 'text').at(-1)?.text;
    if (typeof text === 'string' && text !== text.trimEnd()) return invalidRequest('messages: final assistant content cannot end with trailing whitespace');
  }
  return null;
}
