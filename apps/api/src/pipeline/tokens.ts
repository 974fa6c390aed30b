// Counts tokens when a vendor reports no usage (a cancelled or broken stream), so
// what was delivered is still billed; such counts are flagged `estimated`.
import { createRequire } from 'node:module';

// Loaded on first use: most calls carry the vendor's own usage and never need it.
let encode: ((text: string) => number[]) | null = null;

/**
 * Longest piece handed to the tokenizer at once. BPE on one long run without a break (200 KB
 * of one letter) takes time quadratic in its length: 100,000 characters took 8 s, and a
 * request that size held its call for half a minute. Pieces of at most this many characters,
 * cut at whitespace where there is some, count the same text in milliseconds; a cut inside a
 * word can only add a token, never drop one, which is the safe side for a size limit and a
 * rounding error (under 0.1 %) for an estimated bill.
 */
const PIECE = 2000;

export function countTokens(text: string): number {
  if (!text) return 0;
  encode ??= (createRequire(import.meta.url)('gpt-tokenizer') as { encode: (t: string) => number[] }).encode;
  if (text.length <= PIECE) return encode(text).length;
  let n = 0;
  for (let i = 0; i < text.length; ) {
    let end = Math.min(text.length, i + PIECE);
    if (end < text.length) {
      const space = text.lastIndexOf(' ', end);
      if (space > i + PIECE / 2) end = space;
    }
    n += encode(text.slice(i, end)).length;
    i = end;
  }
  return n;
}

/** Input tokens of a chat request: message text plus OpenAI's per-message framing. */
export function countPromptTokens(messages: unknown[]): number {
  let n = 3;
  for (const m of messages) {
    n += 4;
    const msg = m as { content?: unknown; name?: string; tool_calls?: unknown };
    if (typeof msg.content === 'string') n += countTokens(msg.content);
    else if (Array.isArray(msg.content)) {
      for (const part of msg.content as { type?: string; text?: string }[]) {
        n += part.type === 'text' && part.text ? countTokens(part.text) : part.type === 'image_url' ? 85 : 0;
      }
    }
    if (msg.tool_calls) n += countTokens(JSON.stringify(msg.tool_calls));
    if (msg.name) n += 1;
  }
  return n;
}

/**
 * An upper bound of `countPromptTokens` without the tokenizer: every token of a byte-level BPE
 * covers at least one byte, so a text has at most its UTF-8 size in tokens (a piece cut by
 * `countTokens` still covers its bytes); the framing and an image are counted as there.
 */
export function promptTokenBound(messages: unknown[]): number {
  let n = 3;
  for (const m of messages) {
    n += 4;
    const msg = m as { content?: unknown; name?: string; tool_calls?: unknown };
    if (typeof msg.content === 'string') n += Buffer.byteLength(msg.content);
    else if (Array.isArray(msg.content)) {
      for (const part of msg.content as { type?: string; text?: string }[]) {
        n += part.type === 'text' && part.text ? Buffer.byteLength(part.text) : part.type === 'image_url' ? 85 : 0;
      }
    }
    if (msg.tool_calls) n += Buffer.byteLength(JSON.stringify(msg.tool_calls) ?? '');
    if (msg.name) n += 1;
  }
  return n;
}
