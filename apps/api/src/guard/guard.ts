// What the guard does to one call's messages: redacts PII into the call's vault and looks
// for prompt injection in user and tool content. Returns the findings (kinds and counts).
import type { GuardSettings } from '@optimizer/schema';
import { injectionKinds } from './injection.ts';
import { placeholdersIn, Vault } from './vault.ts';

export interface GuardFinding {
  /** `pii` (redacted) or `injection` (flagged or blocked). */
  type: 'pii' | 'injection';
  kind: string;
  count: number;
  action: 'redacted' | 'flagged' | 'blocked';
}

export interface GuardResult {
  /** The messages as the vendor should see them (the same array when nothing changed). */
  messages: unknown[];
  vault: Vault;
  findings: GuardFinding[];
  blocked: boolean;
}

type Part = { type?: unknown; text?: unknown };
type Message = { role?: unknown; content?: unknown; tool_calls?: { function?: { arguments?: unknown } }[] };

/** Every text of a message (content, text parts, tool-call arguments), each through `f`. */
function mapTexts(m: Message, f: (s: string) => string): Message {
  let changed = false;
  const apply = (s: string) => {
    const r = f(s);
    if (r !== s) changed = true;
    return r;
  };
  let content = m.content;
  if (typeof content === 'string') content = apply(content);
  else if (Array.isArray(content)) content = (content as Part[]).map((p) => (p && p.type === 'text' && typeof p.text === 'string' ? { ...p, text: apply(p.text) } : p));
  const tools = Array.isArray(m.tool_calls)
    ? m.tool_calls.map((t) => (t && typeof t.function?.arguments === 'string' ? { ...t, function: { ...t.function, arguments: apply(t.function.arguments) } } : t))
    : m.tool_calls;
  if (!changed) return m;
  return { ...m, content, ...(tools ? { tool_calls: tools } : {}) };
}

export function guardMessages(messages: unknown[], settings: GuardSettings): GuardResult {
  const findings: GuardFinding[] = [];
  let blocked = false;
  if (settings.injection !== 'allow') {
    const seen = new Map<string, number>();
    for (const raw of messages) {
      const m = raw as Message;
      if (m.role !== 'user' && m.role !== 'tool') continue;
      mapTexts(m, (s) => {
        for (const k of injectionKinds(s)) seen.set(k, (seen.get(k) ?? 0) + 1);
        return s;
      });
    }
    blocked = settings.injection === 'block' && seen.size > 0;
    for (const [kind, count] of seen) findings.push({ type: 'injection', kind, count, action: blocked ? 'blocked' : 'flagged' });
  }
  const taken = new Set<string>();
  if (settings.redact_pii && !blocked) for (const m of messages) mapTexts(m as Message, (s) => (placeholdersIn(s, taken), s));
  const vault = new Vault(taken);
  let out = messages;
  if (settings.redact_pii && !blocked && settings.pii_kinds.length > 0) {
    const redacted = messages.map((m) => mapTexts(m as Message, (s) => vault.redact(s, settings.pii_kinds)));
    if (redacted.some((m, i) => m !== messages[i])) out = redacted;
    for (const [kind, count] of vault.counts()) findings.push({ type: 'pii', kind, count, action: 'redacted' });
  }
  return { messages: out, vault, findings, blocked };
}
