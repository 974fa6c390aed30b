// What makes one OpenAI-compatible vendor differ from OpenAI, as data: where the call
// goes and how it authenticates, the request fields it renames, lacks or bounds, what
// content it reads, where it reports usage, and the shapes of its errors. The family
// adapter (adapter.ts) reads a profile; vendors.ts holds one per vendor.
import type { ChatBody } from '../types.ts';

/** What a parameter rule sees besides the field's value. */
export interface ParamContext {
  body: ChatBody;
  /** The vendor's model name for this call. */
  model: string;
}

/** A phrase naming what the vendor cannot do, or null when it can. */
export type Decide = (value: unknown, ctx: ParamContext) => string | null;

/**
 * How one OpenAI request field reaches the vendor. Evaluated in this order: `unsupported`
 * (and `min`/`max`) refuse the call, `drop` removes the field, `to` renames it, `transform`
 * rewrites its value. A rule applies only when the client set the field (not null).
 */
export interface ParamRule {
  /** The OpenAI field. */
  param: string;
  /** The vendor's name for the field. */
  to?: string;
  /** Removed before sending; the text says why that loses nothing. A function decides per value (null keeps it). */
  drop?: string | Decide;
  /** The vendor cannot do it: the phrase the gateway's 400 names, or a function deciding per value. */
  unsupported?: string | Decide;
  /** Numeric bounds the vendor enforces; a value outside them is unsupported. */
  min?: number;
  max?: number;
  /** Rewrites the value into the vendor's form. */
  transform?: (value: unknown, ctx: ParamContext) => unknown;
}

/** Which images the vendor reads in `image_url` content parts. */
export type ImageInput = 'any' | 'none' | 'data-url-only';

/** The error bodies vendors answer with; see errors.ts. */
export type ErrorShape =
  /** {"error": {"message", "type", "param", "code"}} — OpenAI, Groq, DeepSeek, Azure, OpenRouter, xAI, ... */
  | 'openai'
  /** {"error": "message", "code"?} — xAI, Ollama's native errors. */
  | 'error-string'
  /** {"object": "error", "message": string | {detail: [...]}, "type", "param", "code"} — Mistral, older vLLM. */
  | 'object-error'
  /** {"detail": string | [{loc, msg}]} — FastAPI gateways (Mistral's 401). */
  | 'detail'
  /** {"message": "...", "request_id"} — Mistral's API gateway (401, 429). */
  | 'message';

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

export interface UsageStyle {
  /** Where a response or stream chunk carries usage, first found wins ("usage", Groq's "x_groq.usage"). */
  at: readonly string[];
  /** Where cached prompt tokens are reported, first found wins. */
  cachedAt: readonly string[];
  /** The vendor's completion_tokens leave reasoning tokens out (xAI), so they are added. */
  reasoningOutsideCompletion?: boolean;
}

export interface VendorProfile {
  /** The provider id in the registry. */
  name: string;
  /** The URL of one chat call; `options` are the provider's wire settings (Azure's apiVersion). */
  url(baseUrl: string, model: string, options: Record<string, string>): string;
  /**
   * `bearer`: Authorization: Bearer <key>. `bearer-if-key`: the same, only when a key is
   * configured (local servers). `api-key`: an `api-key: <key>` header (Azure).
   */
  auth: 'bearer' | 'bearer-if-key' | 'api-key';
  /** Extra request headers from the provider's options (OpenRouter's app attribution). */
  headers?(options: Record<string, string>): Record<string, string>;
  /** The body carries no `model`: the URL names it (Azure's deployment). */
  modelInUrl?: boolean;
  /**
   * OpenAI fields the vendor takes as they are. When set, any other field the client set
   * (and no rule covers) is refused by name: these vendors ignore unknown fields silently.
   * When unset, fields pass through and the vendor validates them itself.
   */
  accepts?: readonly string[];
  /** Fields the vendor renames, lacks, bounds or reads differently. */
  params: readonly ParamRule[];
  /** Content part types the vendor reads besides text ('image_url', 'input_audio', 'file'); '*' for all. */
  parts: readonly string[] | '*';
  /** Which images it reads, per model. */
  images(model: string): ImageInput;
  usage: UsageStyle;
  /** The vendor's finish reasons that OpenAI names differently. */
  finishReasons?: Readonly<Record<string, FinishReason>>;
  /** Error bodies this vendor answers with, tried in order. */
  errors: readonly ErrorShape[];
}
