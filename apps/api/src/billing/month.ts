// Billing periods are calendar months in UTC (the spend cap and statements alike).

export function periodOf(at: Date): string {
  return at.toISOString().slice(0, 7);
}

/** The period now: formatted once per month instead of once per call (the budget stage asks on every call). */
let current = { period: '', until: 0 };
export function currentPeriod(now = Date.now()): string {
  if (now >= current.until || now < current.until - 32 * 86_400_000) {
    const d = new Date(now);
    current = { period: periodOf(d), until: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
  }
  return current.period;
}

export function periodBounds(period: string): { start: Date; end: Date } {
  const [y, m] = period.split('-').map(Number) as [number, number];
  return { start: new Date(Date.UTC(y, m - 1, 1)), end: new Date(Date.UTC(y, m, 1)) };
}
