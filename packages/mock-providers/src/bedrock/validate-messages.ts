// Converse `messages` and `system` as strictly as Bedrock checks them: roles,
// alternation, the content-block union, blank text, image formats, tool-id patterns,
// and toolUse / toolResult pairing between consecutive turns.
import { isRecord } from '../guards.ts';
import { constraint, extraneous, validation, type AwsError } from './errors.ts';

const BLOCK_KINDS = new Set(['text', 'image', 'document', 'video', 'toolUse', 'toolResult', 'guardContent', 'cachePoint', 'reasoningContent', 'citationsContent']);
const IMAGE_FORMATS = ['png', 'jpeg', 'gif', 'webp'];
const TOOL_USE_ID = /^[a-zA-Z0-9_-]{1,64}$/;
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function onlyKeys(obj: Record<string, unknown>, allowed: string[]): AwsError | null {
  const extra = Object.keys(obj).find((k) => !allowed.includes(k));
  return extra ? extraneous(extra) : null;
}

function validateBlock(block: unknown, at: string, role: string): AwsError | null {
  if (!isRecord(block)) return constraint(block, at, 'be an object');
  const kinds = Object.keys(block);
  const unknown = kinds.find((k) => !BLOCK_KINDS.has(k));
  if (unknown) return extraneous(unknown);
  if (kinds.length !== 1) return validation(`The ContentBlock object at ${at} must set exactly one of its members, got ${kinds.length}.`);
  const kind = kinds[0]!;
  const v = block[kind];
  switch (kind) {
    case 'text':
      if (typeof v !== 'string') return constraint(v, `${at}.text`, 'be a string');
      if (v.trim() === '') return validation(`The text field in the ContentBlock object at ${at} is blank. Add text to the text field, and try again.`);
      return null;
    case 'image': {
      if (!isRecord(v)) return constraint(v, `${at}.image`, 'be an object');
      if (!IMAGE_FORMATS.includes(String(v.format))) return constraint(v.format, `${at}.image.format`, `satisfy enum value set: [${IMAGE_FORMATS.join(', ')}]`);
      const bytes = isRecord(v.source) ? v.source.bytes : undefined;
      if (typeof bytes !== 'string' || bytes === '' || !BASE64.test(bytes)) return validation(`The image source at ${at}.image.source is not valid base64-encoded bytes.`);
      return null;
    }
    case 'toolUse': {
      if (role !== 'assistant') return validation(`toolUse blocks may only appear in assistant messages (${at}).`);
      if (!isRecord(v)) return constraint(v, `${at}.toolUse`, 'be an object');
      const extra = onlyKeys(v, ['toolUseId', 'name', 'input', 'type']);
      if (extra) return extra;
      if (typeof v.toolUseId !== 'string' || !TOOL_USE_ID.test(v.toolUseId)) return constraint(v.toolUseId, `${at}.toolUse.toolUseId`, 'satisfy regular expression pattern: [a-zA-Z0-9_-]+');
      if (typeof v.name !== 'string' || !TOOL_NAME.test(v.name)) return constraint(v.name, `${at}.toolUse.name`, 'satisfy regular expression pattern: [a-zA-Z0-9_-]+');
      if (!isRecord(v.input)) return validation(`The input field of the toolUse block at ${at} must be a JSON object.`);
      return null;
    }
    case 'toolResult': {
      if (role !== 'user') return validation(`toolResult blocks may only appear in user messages (${at}).`);
      if (!isRecord(v)) return constraint(v, `${at}.toolResult`, 'be an object');
      const extra = onlyKeys(v, ['toolUseId', 'content', 'status', 'type']);
      if (extra) return extra;
      if (typeof v.toolUseId !== 'string' || !TOOL_USE_ID.test(v.toolUseId)) return constraint(v.toolUseId, `${at}.toolResult.toolUseId`, 'satisfy regular expression pattern: [a-zA-Z0-9_-]+');
      if (!Array.isArray(v.content)) return constraint(v.content, `${at}.toolResult.content`, 'not be null');
      if (v.status !== undefined && v.status !== 'success' && v.status !== 'error') return constraint(v.status, `${at}.toolResult.status`, 'satisfy enum value set: [success, error]');
      if (v.status === 'error' && v.content.length === 0) return validation(`The content field at ${at}.toolResult cannot be empty when status value is error.`);
      for (const [i, part] of v.content.entries()) {
        if (!isRecord(part) || Object.keys(part).length !== 1 || !['text', 'json', 'image', 'document', 'video'].includes(Object.keys(part)[0]!)) {
          return validation(`The ToolResultContentBlock at ${at}.toolResult.content.${i} must set exactly one of text, json, image, document, video.`);
        }
      }
      return null;
    }
    default:
      return null;
  }
}

export function validateSystem(system: unknown): AwsError | null {
  if (system === undefined) return null;
  if (!Array.isArray(system)) return constraint(system, 'system', 'be a list');
  for (const [i, block] of system.entries()) {
    if (!isRecord(block)) return constraint(block, `system.${i}`, 'be an object');
    const extra = onlyKeys(block, ['text', 'guardContent', 'cachePoint']);
    if (extra) return extra;
    if ('text' in block && (typeof block.text !== 'string' || block.text.trim() === '')) {
      return validation(`The text field in the SystemContentBlock object at system.${i} is blank. Add text to the text field, and try again.`);
    }
  }
  return null;
}

const ids = (content: unknown[], kind: 'toolUse' | 'toolResult'): string[] =>
  content.filter((b): b is Record<string, any> => isRecord(b) && isRecord(b[kind])).map((b) => String(b[kind].toolUseId));

/** Checks every message; returns whether any tool block appears (Converse then requires toolConfig). */
export function validateMessages(messages: unknown): { error: AwsError | null; hasToolBlocks: boolean } {
  const fail = (error: AwsError) => ({ error, hasToolBlocks: false });
  if (messages === undefined || messages === null) return fail(constraint(null, 'messages', 'not be null'));
  if (!Array.isArray(messages)) return fail(constraint(messages, 'messages', 'be a list'));
  if (messages.length === 0) return fail(validation('The messages field must contain at least one message.'));
  let hasToolBlocks = false;
  for (const [i, m] of messages.entries()) {
    if (!isRecord(m)) return fail(constraint(m, `messages.${i}`, 'be an object'));
    const extra = onlyKeys(m, ['role', 'content']);
    if (extra) return fail(extra);
    if (m.role !== 'user' && m.role !== 'assistant') return fail(constraint(m.role, `messages.${i}.member.role`, 'satisfy enum value set: [user, assistant]'));
    if (i === 0 && m.role !== 'user') return fail(validation('A conversation must start with a user message. Try again with a conversation that starts with a user message.'));
    if (i > 0 && (messages[i - 1] as Record<string, unknown>).role === m.role) {
      return fail(validation('A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.'));
    }
    if (!Array.isArray(m.content) || m.content.length === 0) {
      return fail(validation(`The content field in the Message object at messages.${i} is empty. Add a ContentBlock object to the content field and try again.`));
    }
    for (const [j, block] of m.content.entries()) {
      const err = validateBlock(block, `messages.${i}.content.${j}`, m.role);
      if (err) return fail(err);
    }
    const uses = ids(m.content, 'toolUse');
    const results = ids(m.content, 'toolResult');
    hasToolBlocks ||= uses.length > 0 || results.length > 0;
    if (results.length > 0) {
      const previous = i > 0 ? ids((messages[i - 1] as { content: unknown[] }).content, 'toolUse') : [];
      if (results.length > previous.length) return fail(validation(`The number of toolResult blocks at messages.${i}.content exceeds the number of toolUse blocks of previous turn.`));
      const orphan = results.find((id) => !previous.includes(id));
      if (orphan) return fail(validation(`messages.${i}.content: the toolResult toolUseId ${orphan} does not match any toolUse block in messages.${i - 1}.`));
    }
    const next = messages[i + 1] as Record<string, unknown> | undefined;
    if (uses.length > 0 && next && Array.isArray(next.content)) {
      const answered = ids(next.content, 'toolResult');
      const missing = uses.filter((id) => !answered.includes(id));
      if (missing.length > 0) return fail(validation(`messages.${i + 1}: Expected toolResult blocks at messages.${i + 1}.content for the following Ids: ${missing.join(', ')}`));
    }
  }
  return { error: null, hasToolBlocks };
}
