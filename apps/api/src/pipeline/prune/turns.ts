// drop-oldest-turns: which messages form the turns that may be dropped, oldest first.
import type { Message } from './types.ts';
import { isInstruction } from './work.ts';

/**
 * The droppable turns of a conversation, oldest first, each as the indices of its
 * messages that would go. A turn is a user message and everything up to the next user
 * message (its assistant replies, tool calls and their results); what precedes the
 * first user message (a greeting, say) is a turn of its own. System/developer messages
 * are never listed: dropping a turn leaves them in place. The turn holding the last
 * user message is never droppable, and neither is anything when there is no user
 * message. Turns are merged when a tool call and one of its results fall on both sides
 * of a user message (malformed, but possible), so a call and its results always go
 * together.
 */
export function droppableTurns(messages: readonly Message[]): number[][] {
  const users: number[] = [];
  messages.forEach((m, i) => {
    if (m.role === 'user') users.push(i);
  });
  if (users.length === 0) return [];

  // Where each turn may start: the conversation's beginning and every user message…
  const starts = new Set<number>([0, ...users]);
  // …except where a tool call before it has a result after it.
  const caller = new Map<string, number>();
  messages.forEach((m, i) => {
    if (Array.isArray(m.tool_calls)) for (const call of m.tool_calls) if (typeof call?.id === 'string') caller.set(call.id, i);
    if (m.role === 'tool' && typeof m.tool_call_id === 'string') {
      const from = caller.get(m.tool_call_id);
      if (from !== undefined) for (const s of users) if (s > from && s <= i) starts.delete(s);
    }
  });

  const bounds = [...starts].sort((a, b) => a - b);
  const lastUser = users[users.length - 1]!;
  const turns: number[][] = [];
  for (let t = 0; t < bounds.length; t++) {
    const from = bounds[t]!;
    const to = bounds[t + 1] ?? messages.length;
    if (lastUser >= from && lastUser < to) break;
    const drop: number[] = [];
    for (let i = from; i < to; i++) if (!isInstruction(messages[i]!)) drop.push(i);
    if (drop.length > 0) turns.push(drop);
  }
  return turns;
}
