// Public types of the mock vendor.

export interface RecordedRequest {
  method: string;
  /** The path without the query. */
  path: string;
  /** The path with the query, as requested (the OpenAI mock records it). */
  url?: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or undefined when the body was empty or not JSON. */
   
  body: any;
  rawBody: string;
  receivedAt: number;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

export interface ScriptedToolCall {
  name: string;
  /** JSON text, passed through verbatim. */
  arguments: string;
  /** Defaults to a generated `call_mock_…` id. */
  id?: string;
}

export interface ScriptedUsage {
  prompt_tokens: number;
  completion_tokens: number;
  /** Of prompt_tokens, read from the vendor's prompt cache. */
  cached_tokens?: number;
  /** Of prompt_tokens, written to the prompt cache (vendors that bill writes: Anthropic, Bedrock). */
  cache_write_tokens?: number;
  /** Of cache_write_tokens, written to be kept an hour (Anthropic's 1-hour TTL, reported in cache_creation). */
  cache_write_long_tokens?: number;
  /** Of completion_tokens, spent reasoning. */
  reasoning_tokens?: number;
}

export interface ScriptedReply {
  content: string | null;
  tool_calls: ScriptedToolCall[];
  usage: ScriptedUsage;
  finish_reason: FinishReason;
}

export interface OpenAIMockOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** When set, `Authorization: Bearer <apiKey>` is required, else 401. */
  apiKey?: string;
  /**
   * Keys answered with this HTTP status (a server error, 500 or 503) whatever they ask: a
   * vendor that fails for one key only, as it may for one account's region or quota.
   */
  keyFaults?: Record<string, number>;
  /** Delay before every response. */
  latencyMs?: number;
  /** Delay between streamed chunks. */
  chunkDelayMs?: number;
  /** Keep a log of requests in `vendor.requests` (default true). */
  record?: boolean;
  /**
   * Answer as an OpenAI-compatible vendor that differs on the wire (src/openai/dialects.ts):
   * Mistral's strict fields, tool-call ids, usage on the last chunk and error bodies; Groq's
   * field refusals and x_groq usage; DeepSeek's cache-hit usage; Azure's deployment path,
   * api-version query and `api-key` header (then `url` ends in /openai); xAI's
   * completion_tokens that leave reasoning tokens out. Default: OpenAI.
   */
  dialect?: 'mistral' | 'groq' | 'deepseek' | 'azure' | 'xai';
  /**
   * A grading judge: called with each chat request before the script and the default answer;
   * a string it returns is the answer's content (e.g. a grade for a request it recognises as
   * a judge's), undefined lets the request be answered as usual.
   */
  grader?: (messages: ReadonlyArray<{ role: string; content?: unknown }>) => string | undefined;
}

export interface MockVendor {
  /** Base URL including `/v1`, e.g. http://127.0.0.1:PORT/v1 */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Requests whose client went away before the response ended. */
  readonly aborted: number;
  /** Clears recorded requests, the script, the aborted counter and fault counters. */
  reset(): void;
  close(): Promise<void>;
  /** Sets the canned reply for all following calls (replaces any earlier script). */
  script(next: Partial<ScriptedReply>): void;
}
