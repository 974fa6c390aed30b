// The contract every provider adapter meets. Adapters translate between OpenAI's
// chat-completions wire format (what clients speak to us) and their vendor's, as
// pure functions: request, response, stream, errors and usage.
import type { ApiError } from '../errors.ts';
import type { Usage } from '../wire/usage.ts';

/** The wire formats the gateway can speak upstream. */
export type Wire = 'openai' | 'anthropic' | 'gemini' | 'bedrock';

export interface ProviderInfo {
  /** Lowercase id, e.g. "openai", "anthropic", "groq", or an admin-registered name. */
  name: string;
  wire: Wire;
  /** Base URL including the vendor's version suffix, without a trailing slash. */
  baseUrl: string;
  /** The platform's key for this provider, from the environment (Tuning). */
  platformKey?: string;
  /** Wire-specific settings (Azure api-version, Bedrock region, ...). */
  options?: Record<string, string>;
  /** Which addresses calls to it may reach (default `any`: the operator configured it). */
  addressPolicy?: 'any' | 'public-only';
}

/** An OpenAI chat-completions request body, as the client sent it (minus `optimizer`). */
export type ChatBody = Record<string, unknown> & { model: string; messages: Record<string, unknown>[] };

/** Where and with which credential one call goes. */
export interface CallTarget {
  provider: ProviderInfo;
  /** The vendor's model name (the routed model). */
  model: string;
  apiKey: string;
}

export interface AdapterRequest {
  url: URL;
  headers: Record<string, string>;
  body: string;
}

export interface ParsedCompletion {
  /** An OpenAI `chat.completion` object as JSON text, ready to send to the client. */
  text: string;
  usage: Usage | null;
}

/** What a stream decoder makes of the vendor's bytes, in OpenAI's terms. */
export type StreamEvent =
  /** A `chat.completion.chunk` as JSON text. */
  | { kind: 'chunk'; data: string }
  /** The call's usage; `data` is a usage-only chunk to pass on when the client asked for usage. */
  | { kind: 'usage'; usage: Usage; data?: string }
  /** An error the vendor reported inside the stream, as an OpenAI error object (JSON text). */
  | { kind: 'error'; data: string }
  /** The vendor finished the stream normally. */
  | { kind: 'done' };

export interface StreamDecoder {
  push(bytes: Buffer): StreamEvent[];
  /** Called when the vendor's body ends; returns whatever the last bytes complete. */
  end(): StreamEvent[];
}

export interface ChatAdapter {
  readonly wire: Wire;
  /**
   * Names the first feature of this request the vendor cannot do (the gateway answers
   * 400 naming it), or null. An explicit opt-out, never a silent drop.
   */
  unsupported(body: ChatBody, target: CallTarget): string | null;
  buildRequest(body: ChatBody, target: CallTarget, stream: boolean): AdapterRequest;
  /**
   * Authenticates a built request where the vendor signs its bytes (Bedrock: SigV4 on AWS's
   * signer, which is asynchronous). Absent where buildRequest's headers already carry the key.
   */
  sign?(req: AdapterRequest, target: CallTarget): Promise<AdapterRequest>;
  parseResponse(text: string, target: CallTarget): ParsedCompletion;
  streamDecoder(target: CallTarget): StreamDecoder;
  /** Maps a vendor error response (status ≥ 400) onto our catalogue, keeping the vendor's message. */
  mapError(status: number, headers: Record<string, string | string[] | undefined>, text: string, target: CallTarget): ApiError;
}

/** An embeddings request in the gateway's terms: always a list, one vector per item. */
export interface EmbeddingInput {
  /** Texts, or token-id arrays (only vendors that read tokens take them). */
  input: string[] | number[][];
  dimensions?: number;
  /** The client's end-user id; vendors without one drop it (it changes no vector). */
  user?: string;
}

/** One vendor answer (status < 400) to one of an embedding call's requests. */
export interface EmbeddingAnswer {
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface ParsedEmbeddings {
  /** One vector per input, in input order. */
  vectors: number[][];
  /** Input tokens as the vendor counted them, or null when it reports none. */
  promptTokens: number | null;
}

/** A vendor's embeddings behind OpenAI's /v1/embeddings, as pure transforms. */
export interface EmbeddingAdapter {
  /** Names what the vendor cannot do for this request (the gateway answers 400), or null. */
  unsupported(req: EmbeddingInput, target: CallTarget): string | null;
  /** The vendor calls that embed the inputs (more than one where the vendor caps a batch). */
  buildRequests(req: EmbeddingInput, target: CallTarget): AdapterRequest[];
  /** Authenticates each built request where the vendor signs its bytes (as ChatAdapter.sign). */
  sign?(req: AdapterRequest, target: CallTarget): Promise<AdapterRequest>;
  /** Reads the answers to buildRequests, in the same order. */
  parseResponses(answers: EmbeddingAnswer[], req: EmbeddingInput, target: CallTarget): ParsedEmbeddings;
  mapError(status: number, headers: Record<string, string | string[] | undefined>, text: string, target: CallTarget): ApiError;
}
