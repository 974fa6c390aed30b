// One signal ends a call's upstream work: the client going away, or the total upstream
// timeout. Completions and embeddings both run under it.
import type { ResponseSink } from './sink.ts';

export interface UpstreamSignal {
  abort: AbortController;
  signal: AbortSignal;
  /** Clears the timeout once the call is done. */
  done(): void;
}

export function upstreamSignal(reply: ResponseSink, totalMs: number): UpstreamSignal {
  const abort = new AbortController();
  const total = setTimeout(() => abort.abort(new DOMException('total upstream timeout', 'TimeoutError')), totalMs);
  reply.raw.on('close', () => {
    clearTimeout(total);
    if (!reply.raw.writableFinished) abort.abort();
  });
  return { abort, signal: abort.signal, done: () => clearTimeout(total) };
}
