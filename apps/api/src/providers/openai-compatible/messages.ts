// Rewrites of `messages` some OpenAI-compatible vendors need: the `developer` role as
// `system`, Mistral's nine-character tool-call ids, and the empty OpenAI-only fields an
// assistant turn echoed back from OpenAI's SDK carries. Pure; the client's body is not
// mutated.
import { createHash } from 'node:crypto';
import type { ParamContext } from './profile.ts';

type Message = Record<string, unknown>;

const asMessages = (v: unknown): Message[] => (Array.isArray(v) ? (v as Message[]) : []);

/** A message with a participant `name`, which the vendor rejects (Groq, Mistral). */
export function namedMessage(messages: unknown): string | null {
  return asMessages(messages).some((m) => typeof m.name === 'string' && m.name !== '') ? 'messages[].name (participant names)' : null;
}

/** OpenAI's `developer` role is its `system` role for newer models; vendors without it get `system`. */
export function developerAsSystem(messages: unknown): Message[] {
  return asMessages(messages).map((m) => (m.role === 'developer' ? { ...m, role: 'system' } : m));
}

/** Assistant fields that are null or empty when OpenAI's SDK echoes a reply back: they carry nothing. */
const EMPTY_ASSISTANT_FIELDS = ['refusal', 'annotations', 'audio', 'function_call'] as const;

function withoutEmptyFields(m: Message): Message {
  if (m.role !== 'assistant') return m;
  const out = { ...m };
  for (const f of EMPTY_ASSISTANT_FIELDS) {
    const v = out[f];
    if (v === null || (Array.isArray(v) && v.length === 0)) delete out[f];
  }
  return out;
}

const MISTRAL_ID = /^[A-Za-z0-9]{9}$/;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * Mistral accepts only tool-call ids of nine letters or digits ("Tool call id was call_1
 * but must be a-z, A-Z, 0-9, with a length of 9"). Other ids map to one derived from a
 * hash, the same for the call and its result; Mistral's own ids pass unchanged.
 */
export function mistralToolCallId(id: string): string {
  if (MISTRAL_ID.test(id)) return id;
  const digest = createHash('sha256').update(id).digest();
  let out = '';
  for (let i = 0; i < 9; i++) out += ALPHABET[digest[i]! % ALPHABET.length];
  return out;
}

/** Mistral's messages: `system` for `developer`, its tool-call id format, no empty OpenAI-only fields. */
export function mistralMessages(messages: unknown, _ctx?: ParamContext): Message[] {
  return developerAsSystem(messages).map((raw) => {
    const m = withoutEmptyFields(raw);
    if (m.role === 'tool' && typeof m.tool_call_id === 'string') return { ...m, tool_call_id: mistralToolCallId(m.tool_call_id) };
    if (m.role === 'assistant' && Array.isArray(m.tool_calls)) {
      const calls = (m.tool_calls as Message[]).map((c) => (typeof c.id === 'string' ? { ...c, id: mistralToolCallId(c.id) } : c));
      return { ...m, tool_calls: calls };
    }
    return m;
  });
}
