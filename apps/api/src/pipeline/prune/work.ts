// What the transforms share: a message tagged with its index in the caller's input,
// and which messages no transform may touch.
import type { ContentPart, Message } from './types.ts';

export interface Item {
  m: Message;
  /** Index in the caller's messages: stable whatever was dropped before. */
  origin: number;
}

/** Indices (in the caller's messages) of the messages that stay byte-identical. */
export interface Guard {
  lastUser: number;
  last: number;
}

export interface Settings {
  toolOutputBudgetTokens: number;
  keepRecentToolOutputs: number;
}

export interface TransformOutput {
  items: Item[];
  /** How many messages this transform changed or removed (0: it did nothing). */
  changed: number;
}

export type Transform = (items: Item[], guard: Guard, settings: Settings) => TransformOutput;

export function guardOf(messages: readonly Message[]): Guard {
  let lastUser = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === 'user') {
      lastUser = i;
      break;
    }
  }
  return { lastUser, last: messages.length - 1 };
}

export function isInstruction(m: Message): boolean {
  return m.role === 'system' || m.role === 'developer';
}

/** System/developer prompts, the last user message and the last message are never edited. */
export function isFixed(item: Item, guard: Guard): boolean {
  return isInstruction(item.m) || item.origin === guard.lastUser || item.origin === guard.last;
}

export function isTextPart(p: ContentPart): p is ContentPart & { text: string } {
  return p.type === 'text' && typeof p.text === 'string';
}

/** The text of a content made of text only (a string, or text parts joined by newlines); null otherwise. */
export function textOnly(content: Message['content']): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content) || content.length === 0) return null;
  if (!content.every(isTextPart)) return null;
  return content.map((p) => p.text).join('\n');
}

/** Key-order-independent JSON, for comparing messages for exact equality. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}
