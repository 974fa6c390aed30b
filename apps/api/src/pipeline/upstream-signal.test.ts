// One signal ends a call's upstream work: the transport's `gone` (the client left) or the
// total upstream timeout, whichever comes first.
import { describe, expect, it } from 'vitest';
import { upstreamSignal } from './upstream-signal.ts';

describe('upstreamSignal', () => {
  it('aborts when the client goes', () => {
    const gone = new AbortController();
    const u = upstreamSignal(gone.signal, 60_000);
    expect(u.signal.aborted).toBe(false);
    gone.abort();
    expect(u.signal.aborted).toBe(true);
  });

  it('aborts at the total timeout, as a TimeoutError', async () => {
    const u = upstreamSignal(new AbortController().signal, 5);
    await new Promise((r) => setTimeout(r, 20));
    expect(u.signal.aborted).toBe(true);
    expect((u.signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it('does nothing more once the call is done', async () => {
    const gone = new AbortController();
    const u = upstreamSignal(gone.signal, 5);
    u.done();
    gone.abort();
    await new Promise((r) => setTimeout(r, 20));
    expect(u.signal.aborted).toBe(false);
  });

  it('starts aborted for a client already gone', () => {
    const gone = new AbortController();
    gone.abort();
    expect(upstreamSignal(gone.signal, 60_000).signal.aborted).toBe(true);
  });
});
