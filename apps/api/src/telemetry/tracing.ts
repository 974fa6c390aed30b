// What the completion pipeline knows of tracing: a handle per call that marks each stage as it
// starts and ends the call with its outcome. The gateway holds a `Tracing` only when OTLP export
// is configured (telemetry/otel.ts, loaded at boot then and only then); otherwise it holds
// null, and the pipeline's `trace?.stage(...)` lines are a null check each, no tracer call.

/** What a trace reads of a call at its end (the pipeline's call context is one): what the call was, never its text. */
export interface TracedCall {
  id: string;
  requestedModel: string;
  stream: boolean;
  served?: { provider: string; model: string } | null | undefined;
  route?: { provider: string; model: string } | null | undefined;
  optimizer?: { step: string } | null | undefined;
  cacheHit: unknown;
}

/** The pipelines' stages: the completion's, in the order a call passes them (design §2; pipeline/completions.ts), and the embeddings' own `validate` (pipeline/embeddings.ts). */
export type StageName = 'idempotency' | 'validate' | 'annotate' | 'guard' | 'capture' | 'route' | 'budget' | 'cache' | 'prune' | 'dispatch' | 'respond';

export interface CallTrace {
  /** The call's context, once authenticated: what the call was (never its text) is read from it at the end. */
  call(ctx: TracedCall): void;
  /** Ends the stage running, if any, and starts `name`. */
  stage(name: StageName): void;
  /** The idempotency stage replayed an earlier answer with this status. */
  replayed(status: number): void;
  /** Ends the stage running and the call: its status (default 200, or the replayed one) and an error's catalogue code. */
  end(status?: number, errorCode?: string): void;
}

export interface Tracing {
  /** A call begins (its root span starts now). */
  begin(): CallTrace;
  /** Exports what is still queued, then stops. */
  shutdown(): Promise<void>;
}
