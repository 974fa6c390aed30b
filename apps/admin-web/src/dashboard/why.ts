// A call's "why" in a few words for its row in Calls, from its reasons as fields: what served
// it and the evidence it held (the full reasons are on its detail).
import type { CallRow } from './calls-csv.ts';

export function shortWhy(c: Pick<CallRow, 'why' | 'cache' | 'status' | 'errorCode'>): string {
  if (c.cache.hit) return 'from the cache';
  const d = c.why.find((w) => w.kind === 'decision');
  if (d) return `${d.policy} holds ≥ ${d.bound !== null ? `${(d.bound * 100).toFixed(1)}%` : '?'} of the baseline${d.samples !== null ? ` (${d.samples} samples)` : ''}`;
  const b = c.why.find((w) => w.kind === 'baseline');
  if (b) return b.summary.endsWith(' yet') || b.summary.includes('no evidence') ? 'baseline: nothing cheaper proven yet' : 'baseline: nothing cheaper holds the bar';
  const p = c.why.find((w) => w.kind === 'pinned');
  if (p) return `pinned to ${p.policy}`;
  if (c.status >= 400) return c.errorCode ?? `failed (${c.status})`;
  return c.why[0]?.summary ?? '—';
}
