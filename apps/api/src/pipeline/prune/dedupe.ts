// dedupe-messages and dedupe-tool-outputs.
import { contentTokens } from './estimate.ts';
import { canonical, isFixed, isInstruction, textOnly, type Guard, type Item, type TransformOutput } from './work.ts';

/**
 * Runs of exactly equal consecutive messages (every field: role, content, name,
 * tool_call_id…) collapse to their last one. System/developer prompts and assistant
 * messages carrying tool_calls are never collapsed; tool messages only when the
 * tool_call_id is the same too. Keeping the last of a run keeps the last message and
 * the last user message in place.
 */
export function dedupeMessages(items: Item[], guard: Guard): TransformOutput {
  const out: Item[] = [];
  let changed = 0;
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    const next = items[i + 1];
    if (next && collapsible(item, guard) && next.m.role === item.m.role && sameContentShape(item, next) && canonical(next.m) === canonical(item.m)) {
      changed++;
      continue;
    }
    out.push(item);
  }
  return { items: out, changed };
}

/** A cheap test that rules out most unequal pairs before serialising both. */
function sameContentShape(a: Item, b: Item): boolean {
  const x = a.m.content;
  const y = b.m.content;
  if (typeof x === 'string' || typeof y === 'string') return x === y;
  return Array.isArray(x) === Array.isArray(y) && (!Array.isArray(x) || x.length === (y as unknown[]).length);
}

function collapsible(item: Item, guard: Guard): boolean {
  const m = item.m;
  if (isInstruction(m)) return false;
  if (Array.isArray(m.tool_calls) && m.tool_calls.length > 0) return false;
  // The guarded messages are last of any run they are in; refusing them is belt and braces.
  return item.origin !== guard.lastUser && item.origin !== guard.last;
}

const SAME_OUTPUT = /^\[same output as the tool call [^\n]* above\]$/;

export function sameOutputMarker(toolCallId: string): string {
  return `[same output as the tool call ${toolCallId} above]`;
}

export function isSameOutputMarker(content: unknown): boolean {
  return typeof content === 'string' && SAME_OUTPUT.test(content);
}

/**
 * A tool output identical to an earlier tool output (same text, whatever the tool)
 * becomes `[same output as the tool call <id> above]`, naming the first occurrence,
 * which stays. Only text outputs, only when the marker is shorter, never the last
 * message; a marker is never itself a first occurrence, so a second pass finds nothing.
 */
export function dedupeToolOutputs(items: Item[], guard: Guard): TransformOutput {
  const first = new Map<string, string>();
  let changed = 0;
  const out = items.map((item): Item => {
    const m = item.m;
    if (m.role !== 'tool' || isSameOutputMarker(m.content)) return item;
    const text = textOnly(m.content);
    if (text === null) return item;
    const key = `${typeof m.content === 'string' ? 's' : 'a'}:${text}`;
    const earlier = first.get(key);
    if (earlier === undefined) {
      if (typeof m.tool_call_id === 'string') first.set(key, m.tool_call_id);
      return item;
    }
    if (isFixed(item, guard)) return item;
    const marker = sameOutputMarker(earlier);
    if (contentTokens(marker) >= contentTokens(m.content)) return item;
    changed++;
    return { m: { ...m, content: marker }, origin: item.origin };
  });
  return { items: out, changed };
}
