// Counts tokens when a vendor reports no usage (a cancelled or broken stream), so
// what was delivered is still billed; such counts are flagged `estimated`.
import { createRequire } from 'node:module';

// Loaded on first use: most calls carry the vendor's own usage and never need it.
let encode: ((text: string) => number[]) | null = null;

export function countTokens(text: string): number {
  if (!text) return 0;
  encode ??= (createRequire(import.meta.url)('gpt-tokenizer') as { encode: (t: string) => number[] }).encode;
  return encode(text).length;
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
