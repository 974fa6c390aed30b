// How a call ended, as a value. The stages of a pipeline return one (or, for a live stream, a
// `Relay` that becomes one when it ends); the runner (run-call.ts) passes every one through the
// one meter exit (`meterOutcome`) and `respond` once. Beside the five kinds there is
// `Replayed`: an Idempotency-Key's earlier answer, which is no new call (nothing is metered, and
// its answer is the first call's).
import type { CachedAnswer } from '../cache/answer-cache.ts';
import type { ApiError } from '../errors.ts';
import type { IdempotencyRecord } from '../hot/store.ts';
import type { Usage } from '../wire/usage.ts';
import type { Attempt } from './context.ts';
import type { Named } from './routed-plan.ts';

/** A whole answer from a vendor: a chat completion's JSON (or an embeddings list's), to be sent with its `optimizer` block. */
export interface Served {
  kind: 'served';
  text: string;
  /** From dispatch to the answer's last byte: the rest of the call's time is the gateway's overhead. */
  upstreamMs: number;
  vendorStatus: number | null;
  usage: Usage;
  /** A stream request answered whole: `quality-gate`, the gate checked it before any byte left; `policy`, its policy needed the whole answer first. */
  held?: 'quality-gate' | 'policy';
  /** A routed call's answer and the candidate that gave it, for what the step learns after. */
  named?: Named;
}

/** Served from the plan, exact or semantic cache: no vendor answered. */
export interface CacheHit {
  kind: 'cache-hit';
  answer: CachedAnswer;
  source: 'plan' | 'exact' | 'semantic';
}

/** A relayed stream, once it has ended: done (200), the client gone (499) or the vendor failing part-way. */
export interface Streamed {
  kind: 'streamed';
  /** The head the stream was sent with (kept with its body for an idempotent replay). */
  headers: Record<string, string>;
  /** The vendor attempt it relayed. */
  attempt: Attempt;
  status: number;
  errorCode: string | null;
  /** The error event the client gets where the final chunk would be; null when the stream ended well. */
  failure: ApiError | null;
  usage: Usage;
  overheadMs: number;
  vendorStatus: number;
  /** The delivered answer as one chat.completion (for the recording, the caches and learning), when one was kept. */
  assembled: string | null;
  /** The tail's parts: the vendor's first chunk's identity, and its usage chunk (sent on when the client asked for usage). */
  meta: { id?: string; created?: number; model?: string } | null;
  usageChunk: string | null;
  /** What the guard's chunk restorer still held back. */
  held: string;
  /** The pieces sent so far, kept when the call has an Idempotency-Key (for its replay); else null. */
  recorded: string[] | null;
  named: Named | null;
}

/** The call got as far as a model and failed: metered with its error, then answered as the catalogue's envelope. */
export interface Failed {
  kind: 'failed';
  error: ApiError;
}

/** Refused before it was a call (no model yet: an invalid body, a bad header): answered, never metered. */
export interface Refused {
  kind: 'refused';
  error: ApiError;
}

export interface Replayed {
  kind: 'replayed';
  record: IdempotencyRecord;
}

export type Outcome = Served | CacheHit | Streamed | Failed | Refused | Replayed;
