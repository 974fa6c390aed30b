// Stage: cache. The exact cache answers a request the tenant has already had
// answered, byte for byte the same in everything that shapes the answer; the plan
// cache answers the opening call of a run from a run that completed without a hard
// failure. Entries are namespaced by tenant (and, for `auto`, by step), live in the
// hot store (Redis: shared by every replica), and hold only complete, successful
// answers. A hit costs nothing upstream and says so in the optimizer block.
import { canonical } from './canonical.ts';
import { createHash } from 'node:crypto';
import type { CallContext } from './context.ts';


/** Fields that do not shape the answer and so do not split the cache. */
const IGNORED = new Set(['stream', 'stream_options', 'user', 'metadata', 'store', 'service_tier', 'safety_identifier', 'prompt_cache_key']);


/** The cache key of a request: tenant, step (for routed calls) and the canonical request. */
export function exactKey(ctx: CallContext): string {
  const shaping: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(ctx.body)) if (!IGNORED.has(k)) shaping[k] = v;
  const step = ctx.optimizer?.fingerprint ?? '';
  const h = createHash('sha256').update(canonical(shaping)).update('\0').update(step).digest('base64url');
  return `cache:exact:${ctx.principal.accountId}:${h}`;
}

export function planKey(ctx: CallContext): string {
  return exactKey(ctx).replace('cache:exact:', 'cache:plan:');
}

/** Only complete, successful answers are cached: one choice that stopped on its own or called tools, and never a trial's. */
export function cacheable(ctx: CallContext, completionText: string): boolean {
  if ((ctx.body.n as number | undefined) !== undefined && (ctx.body.n as number) > 1) return false;
  // a trial's answer (an unproven policy served to learn) is an experiment on this call, never replayed to others
  if (ctx.optimizer?.trial) return false;
  try {
    const j = JSON.parse(completionText) as { choices?: { finish_reason?: string; message?: { content?: string | null; tool_calls?: unknown[] } }[] };
    const c = j.choices;
    if (!c || c.length !== 1) return false;
    const f = c[0]!.finish_reason;
    if (f !== 'stop' && f !== 'tool_calls') return false;
    return Boolean(c[0]!.message?.content) || Boolean(c[0]!.message?.tool_calls?.length);
  } catch {
    return false;
  }
}


/** An answer replayed as a stream: the chunks a vendor would have sent for it. */
export function completionAsChunks(completionText: string): string[] {
  const j = JSON.parse(completionText) as {
    id: string;
    created: number;
    model: string;
    system_fingerprint?: string | null;
    choices: { index: number; message: { role: string; content?: string | null; tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[] }; finish_reason: string }[];
  };
  const base = { id: j.id, object: 'chat.completion.chunk', created: j.created, model: j.model, system_fingerprint: j.system_fingerprint ?? null };
  const out: string[] = [];
  for (const c of j.choices) {
    out.push(JSON.stringify({ ...base, choices: [{ index: c.index, delta: { role: 'assistant', content: '' }, finish_reason: null }] }));
    if (c.message.content) out.push(JSON.stringify({ ...base, choices: [{ index: c.index, delta: { content: c.message.content }, finish_reason: null }] }));
    (c.message.tool_calls ?? []).forEach((t, i) => {
      out.push(JSON.stringify({ ...base, choices: [{ index: c.index, delta: { tool_calls: [{ index: i, id: t.id, type: t.type, function: { name: t.function.name, arguments: t.function.arguments } }] }, finish_reason: null }] }));
    });
    out.push(JSON.stringify({ ...base, choices: [{ index: c.index, delta: {}, finish_reason: c.finish_reason }] }));
  }
  return out;
}
