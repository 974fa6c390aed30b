// What each provider brings to the conformance matrix: a mock of its vendor that
// speaks the real wire format, how to point the gateway at it, and how to read
// what the vendor received. A provider lacking a feature opts out by naming it.
import type { ScriptedReply } from '@optimizer/mock-providers';

export const cases = [
  'plain',
  'stream',
  'system',
  'multi-turn',
  'image',
  'tools-one',
  'tools-parallel',
  'tools-forced',
  'tool-results',
  'json-schema',
  'stop',
  'max-tokens',
  'bad-key',
  'rate-limited',
  'server-error',
  'error-mid-stream',
] as const;
export type Case = (typeof cases)[number];

export type Fault = 'error-5xx' | 'rate-limited' | 'error-in-stream';

export interface ConformanceMock {
  url: string;
  /** Raw requests as received, newest last. */
  requests: { path: string; headers: Record<string, string | string[] | undefined>; body: any }[];
  script(next: Partial<ScriptedReply>): void;
  /** Requests whose client went away before the response ended. */
  readonly aborted: number;
  reset(): void;
  close(): Promise<void>;
}

/** A vendor request seen in OpenAI's terms, so one assertion fits every vendor. */
export interface Received {
  model: string;
  system: string | null;
  /** Text of each user turn, in order. */
  userTexts: string[];
  imageCount: number;
  toolNames: string[];
  /** Tool results sent back to the model (tool role / tool_result blocks / functionResponse). */
  toolResults: number;
  /** The forced tool, if the request forces one. */
  forcedTool: string | null;
  maxTokens: number | null;
  stop: string[];
  jsonSchema: boolean;
}

/** Options a test may ask of a mock (all mocks support them). */
export interface MockOptions {
  /** Delay between streamed chunks, so a client can go away mid-stream. */
  chunkDelayMs?: number;
}

/**
 * Which parts of a call's usage the vendor's wire reports (the rest it folds into the
 * totals or leaves out). Default: cached and reasoning tokens yes, cache writes no.
 */
export interface UsageReport {
  cached?: boolean;
  cacheWrites?: boolean;
  /** Cache writes split by lifetime (Anthropic's cache_creation), the hour-long ones priced higher. */
  longCacheWrites?: boolean;
  reasoning?: boolean;
}

export interface ProviderConformance {
  /** Provider id in the gateway's registry. */
  provider: string;
  /** The model name a client sends (a catalog model, or provider/model). */
  model: string;
  startMock(apiKey: string, opts?: MockOptions): Promise<ConformanceMock>;
  /** Gateway environment pointing the provider at the mock with the platform key. */
  env(mockUrl: string, apiKey: string): Record<string, string>;
  /** The model name that makes the mock misbehave, as a client would send it. */
  faultModel(fault: Fault): string;
  /** Reads the last vendor request in OpenAI's terms. */
  inspect(request: ConformanceMock['requests'][number]): Received;
  /** What the vendor's usage reports; see UsageReport. */
  usage?: UsageReport;
  /** Cases this provider cannot do, with the reason; the gateway must answer them with a clear 400. */
  optOut?: Partial<Record<Case, string>>;
}
