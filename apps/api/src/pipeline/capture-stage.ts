// Stage: capture. Right after the guard (so what it replaced is never kept in clear), it notes
// what the tenant's capture settings keep of this call: nothing, its metadata, or the request
// as the vendor will see it. When the call is metered, `recordingRow` adds the stored response
// and the row goes out with the call's own records (write-ahead file, then the database in
// batches): the hot path never waits on PostgreSQL for a recording.
import type { CaptureSettings } from '@optimizer/schema';
import type { CallContext } from './context.ts';
import type { RecordingRow } from '../meter/rows.ts';
import { redactDeep, redactText } from '../guard/redact.ts';


export function captureStage(ctx: CallContext, settings: CaptureSettings): void {
  ctx.capture = settings.content === 'none' ? null : { content: settings.content, redact: settings.redact_pii, request: ctx.body };
}

/** The answer as the vendor gave it (the guard's placeholders kept, never restored), minus the optimizer block. */
function storedResponse(answer: string | undefined): Record<string, unknown> | null {
  if (!answer) return null;
  try {
    const parsed = JSON.parse(answer) as Record<string, unknown>;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
    delete parsed.optimizer;
    return parsed;
  } catch {
    return null;
  }
}

export function recordingRow(ctx: CallContext, call: { status: number; error_code: string | null; served_model: string | null; prompt_tokens: number; completion_tokens: number }, answer: string | undefined): RecordingRow | null {
  const note = ctx.capture;
  if (!note) return null;
  const messages = Array.isArray(note.request.messages) ? (note.request.messages as { role?: unknown }[]) : [];
  const full = note.content === 'full';
  const hit = { changed: false };
  const request = full ? (note.redact ? redactDeep(note.request, hit) : note.request) : null;
  const raw = full ? storedResponse(answer) : null;
  const response = raw && note.redact ? redactDeep(raw, hit) : raw;
  return {
    id: ctx.id,
    account_id: ctx.principal.accountId,
    workflow_id: ctx.principal.workflowId,
    created_at: ctx.receivedAt.toISOString(),
    fingerprint: ctx.optimizer?.fingerprint ?? null,
    step: ctx.optimizer?.step ?? null,
    content: note.content,
    redacted: hit.changed,
    requested_model: ctx.requestedModel || '(unknown)',
    served_model: call.served_model,
    status: call.status,
    error_code: call.error_code,
    prompt_tokens: call.prompt_tokens,
    completion_tokens: call.completion_tokens,
    meta: { messages: messages.length, roles: messages.map((m) => (typeof m.role === 'string' ? m.role : '')) },
    request,
    response,
  };
}

/**
 * What the optimizer's evidence may keep of an answer's text on this call (optimizer/stored-probe.ts,
 * storedProbe): the text only where the call's capture keeps the content (`full`), masked when
 * it redacts PII; else nothing (evidence then keeps only what agreement compares).
 */
export function evidenceText(ctx: CallContext): (text: string) => string | null {
  const note = ctx.capture;
  if (note?.content !== 'full') return () => null;
  return note.redact ? (text) => redactText(text).text : (text) => text;
}
