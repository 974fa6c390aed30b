// Capture settings (spec 4.5 `/v1/settings/capture`) and the Recording record (spec 2.7,
// `GET /v1/workflows/:id/recordings`; its input is `recordingsInput`). Shared by the server,
// the SDK and the web app.
import { z } from 'zod';

/** Longest a recording may be kept (10 years), shortest one day. */
export const MAX_RETENTION_DAYS = 3650;

/**
 * What the gateway keeps of each call's content beside the optimizer's own evidence:
 * `none` (no recording), `metadata` (who, when, which model, sizes and status; no text) or
 * `full` (the request as the vendor saw it, after the guard, and the stored response).
 * `redact_pii` masks e-mail addresses, phone and card numbers and the like in what is kept.
 * Recordings older than `retention_days` are deleted by a periodic sweep.
 */
export const captureSettings = z
  .object({
    content: z.enum(['none', 'metadata', 'full']).default('metadata'),
    retention_days: z.int().min(1).max(MAX_RETENTION_DAYS).default(30),
    redact_pii: z.boolean().default(true),
  })
  .strict();
export type CaptureSettings = z.infer<typeof captureSettings>;
export const CAPTURE_DEFAULTS: CaptureSettings = { content: 'metadata', retention_days: 30, redact_pii: true };

export interface RecordingView {
  id: string;
  call_id: string;
  workflow_id: string;
  created_at: string;
  /** The step the optimizer attributed the call to (routed and annotated calls), else null. */
  step: { fingerprint: string; label: string } | null;
  content: 'metadata' | 'full';
  redacted: boolean;
  requested_model: string;
  served_model: string | null;
  status: number;
  error_code: string | null;
  usage: { prompt_tokens: number; completion_tokens: number };
  /** The request as the vendor saw it (after the guard): its messages and parameters; null for metadata. */
  request: Record<string, unknown> | null;
  /** The stored response (a chat.completion) as the client received it, minus the optimizer block; null for metadata or a failed call. */
  response: Record<string, unknown> | null;
  /** What metadata keeps without the text: message count and roles. */
  meta: { messages: number; roles: string[] };
}
