// A fast, deterministic token estimate for a chat request, used to size pruning.
//
// It is not a tokenizer: pruning runs on every routed call before the model is known,
// so it trades exactness for speed and for one property the transforms rely on —
// it is additive (the sum over messages) and monotone in text length, so that a
// transform that only shortens text or drops messages never raises it.
//
//   request   3 tokens (reply priming, as OpenAI counts it)
//   message   4 tokens of framing, +1 with a `name`
//   text      ceil(chars / 4) per string content or text part (UTF-16 code units;
//             ≈ OpenAI's rule of thumb for English and code, low for CJK)
//   image     85 tokens per image_url part (a low-detail tile: the floor, not the cost)
//   other     ceil(JSON chars / 4) per any other part (input_audio, file…)
//   tool_calls ceil(JSON chars / 4) of the assistant's tool_calls array
import type { ContentPart, Message } from './types.ts';

export const REQUEST_TOKENS = 3;
export const MESSAGE_TOKENS = 4;
export const IMAGE_TOKENS = 85;
export const CHARS_PER_TOKEN = 4;

export function textTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

export function partTokens(part: ContentPart): number {
  if (part.type === 'text' && typeof part.text === 'string') return textTokens(part.text);
  if (part.type === 'image_url') return IMAGE_TOKENS;
  return textTokens(JSON.stringify(part));
}

export function contentTokens(content: Message['content']): number {
  if (typeof content === 'string') return textTokens(content);
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const part of content) n += partTokens(part);
  return n;
}

export function messageTokens(m: Message): number {
  let n = MESSAGE_TOKENS + contentTokens(m.content);
  if (m.name) n += 1;
  if (Array.isArray(m.tool_calls) && m.tool_calls.length > 0) n += textTokens(JSON.stringify(m.tool_calls));
  return n;
}

/** Estimated prompt tokens of `messages` (see the table above). */
export function estimateTokens(messages: readonly Message[]): number {
  let n = REQUEST_TOKENS;
  for (const m of messages) n += messageTokens(m);
  return n;
}
