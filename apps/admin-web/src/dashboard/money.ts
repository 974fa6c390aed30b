// Money and shares as the dashboard writes them. Amounts are whole micro-dollars (the meter's
// unit), so none is ever rounded away: below a cent in µ$ (never `$0.0000`), below $100 with
// every digit down to the micro-dollar, above with cents. Estimates of retention are shown as
// a range that cannot read below 0 (a bound on few or poor samples can fall under it).

const MINUS = '−';

/** Trailing zeros off, keeping at least two decimals. */
function trim(fixed: string): string {
  return fixed.replace(/(\.\d\d\d*?)0+$/, '$1');
}

export function usd(x: number): string {
  if (!Number.isFinite(x)) return '—';
  const micros = Math.round(x * 1e6);
  if (micros === 0) return '$0';
  const sign = micros < 0 ? MINUS : '';
  const a = Math.abs(micros);
  if (a < 10_000) return `${sign}${a.toLocaleString('en-US')} µ$`;
  if (a < 100_000_000) return `${sign}$${trim((a / 1e6).toFixed(6))}`;
  return `${sign}$${(a / 1e6).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

export const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** A share that cannot read below 0 for display (above 1 it can: a candidate may beat the baseline), and whether it was clamped. */
export function share(x: number): { text: string; clamped: boolean } {
  return { text: pct(Math.max(0, x)), clamped: x < 0 };
}

/**
 * A retention estimate as a range: its lower bound to its estimate, neither below 0 %.
 * `note` says when a figure was clamped (few or poor samples put it below 0).
 */
export function retentionRange(retention: number, lcb: number): { text: string; note: string | null } {
  const lo = share(Math.min(lcb, retention));
  const hi = share(retention);
  const note = lo.clamped || hi.clamped ? `Too few or too poor samples: the estimate (${pct(retention)}, lower bound ${pct(lcb)}) reads below 0 % and is shown as 0 %.` : null;
  return { text: lo.text === hi.text ? hi.text : `${lo.text} – ${hi.text}`, note };
}
