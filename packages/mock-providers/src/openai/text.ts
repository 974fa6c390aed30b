// Message text extraction and the rough chars/4 token estimate.
import { isRecord } from '../guards.ts';

/** Text of a message `content`: a string, or the `text` of each content part. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => (isRecord(part) && typeof part.text === 'string' ? part.text : ''))
    .filter((text) => text !== '')
    .join(' ');
}

/** All text a model would read: contents plus assistant tool-call names and arguments. */
export function allMessageText(messages: Record<string, unknown>[]): string {
  const texts: string[] = [];
  for (const message of messages) {
    texts.push(contentText(message.content));
    if (!Array.isArray(message.tool_calls)) continue;
    for (const call of message.tool_calls as unknown[]) {
      if (isRecord(call) && isRecord(call.function)) texts.push(String(call.function.name ?? ''), String(call.function.arguments ?? ''));
    }
  }
  return texts.join('');
}

export function lastUserText(messages: Record<string, unknown>[], maxChars: number): string {
  const last = messages.findLast((m) => m.role === 'user');
  return contentText(last?.content).replace(/\s+/g, ' ').trim().slice(0, maxChars);
}

export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}
