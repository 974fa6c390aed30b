// trim-old-tool-outputs: tool outputs older than the last few, past a token budget,
// keep their head and tail around a marker.
import { CHARS_PER_TOKEN, textTokens } from './estimate.ts';
import type { Message } from './types.ts';
import { isFixed, textOnly, type Guard, type Item, type Settings, type TransformOutput } from './work.ts';

/** Share of the budget kept at each end. */
const HEAD_SHARE = 0.4;
const TAIL_SHARE = 0.4;
/** A cut end is moved to a line break when that keeps at least this share of it. */
const SNAP_SHARE = 0.5;
/** Below this many characters kept, trimming is not worth a marker: the text is left alone. */
const MIN_KEPT_CHARS = 16;

export function prunedMarker(tokens: number): string {
  return `[… ${tokens} tokens pruned …]`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * `text` cut to at most `budgetTokens` estimated tokens: the first and last ~40 % of
 * the budget (moved to line breaks where that is cheap, never splitting a surrogate
 * pair), with `[… N tokens pruned …]` on its own line between them, N the estimated
 * tokens of what was cut. Null when the text already fits or the budget is too small
 * to hold the marker and some text. The result fits the budget, so cutting again
 * changes nothing.
 */
export function trimText(text: string, budgetTokens: number): string | null {
  if (textTokens(text) <= budgetTokens) return null;
  const maxChars = Math.floor(budgetTokens) * CHARS_PER_TOKEN;
  // The longest the marker can be: N is at most the whole text's estimate.
  const markerChars = prunedMarker(textTokens(text)).length + 2;
  const room = maxChars - markerChars;
  if (room < MIN_KEPT_CHARS) return null;
  let head = Math.min(Math.floor(maxChars * HEAD_SHARE), Math.floor(room / 2));
  let tail = Math.min(Math.floor(maxChars * TAIL_SHARE), room - Math.floor(room / 2));
  const headBreak = text.lastIndexOf('\n', head - 1);
  if (headBreak >= head * SNAP_SHARE) head = headBreak;
  const tailStart = text.length - tail;
  const tailBreak = text.indexOf('\n', tailStart);
  if (tailBreak !== -1 && text.length - tailBreak - 1 >= tail * SNAP_SHARE) tail = text.length - tailBreak - 1;
  if (head > 0 && isHighSurrogate(text.charCodeAt(head - 1))) head--;
  if (tail > 0 && isHighSurrogate(text.charCodeAt(text.length - tail - 1))) tail--;
  const cut = text.slice(head, text.length - tail);
  return `${text.slice(0, head)}\n${prunedMarker(textTokens(cut))}\n${text.slice(text.length - tail)}`;
}

function trimContent(content: Message['content'], budgetTokens: number): Message['content'] | null {
  const text = textOnly(content);
  if (text === null) return null;
  const trimmed = trimText(text, budgetTokens);
  if (trimmed === null) return null;
  return typeof content === 'string' ? trimmed : [{ type: 'text', text: trimmed }];
}

/**
 * Every tool output but the last `keepRecentToolOutputs` (and never the last message)
 * whose text is over `toolOutputBudgetTokens` is cut with trimText. Outputs with
 * non-text parts are left whole.
 */
export function trimOldToolOutputs(items: Item[], guard: Guard, settings: Settings): TransformOutput {
  const tools: number[] = [];
  items.forEach((item, i) => {
    if (item.m.role === 'tool') tools.push(i);
  });
  const old = new Set(tools.slice(0, Math.max(0, tools.length - settings.keepRecentToolOutputs)));
  let changed = 0;
  const out = items.map((item, i): Item => {
    if (!old.has(i) || isFixed(item, guard)) return item;
    const content = trimContent(item.m.content, settings.toolOutputBudgetTokens);
    if (content === null) return item;
    changed++;
    return { m: { ...item.m, content }, origin: item.origin };
  });
  return { items: out, changed };
}
