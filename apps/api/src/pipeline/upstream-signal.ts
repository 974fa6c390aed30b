// One signal ends a call's upstream work: the client going away (the transport's `gone`), or
// the total upstream timeout. Completions and embeddings both run under it.
export interface UpstreamSignal {
  abort: AbortController;
  signal: AbortSignal;
  /** Clears the timeout once the call is done. */
  done(): void;
}

export function upstreamSignal(gone: AbortSignal, totalMs: number): UpstreamSignal {
  const abort = new AbortController();
  const total = setTimeout(() => abort.abort(new DOMException('total upstream timeout', 'TimeoutError')), totalMs);
  const left = () => {
    clearTimeout(total);
    abort.abort();
  };
  if (gone.aborted) left();
  else gone.addEventListener('abort', left, { once: true });
  return {
    abort,
    signal: abort.signal,
    done: () => {
      clearTimeout(total);
      gone.removeEventListener('abort', left);
    },
  };
}
