import { describe, expect, it } from 'vitest';
import { currentPeriod, periodBounds, periodOf } from './month.ts';

describe('the billing period', () => {
  it('is the UTC calendar month, also when asked for the period now, across a month end and back', () => {
    const lastMs = Date.UTC(2026, 0, 31, 23, 59, 59, 999);
    expect(currentPeriod(lastMs)).toBe('2026-01');
    expect(currentPeriod(lastMs + 1)).toBe('2026-02');
    expect(currentPeriod(Date.UTC(2026, 11, 31, 23, 59))).toBe('2026-12');
    expect(currentPeriod(Date.UTC(2027, 0, 1))).toBe('2027-01');
    // a clock set back (tests, a corrected host clock) is not served the later month
    expect(currentPeriod(lastMs)).toBe('2026-01');
    for (const at of [lastMs, lastMs + 1, Date.UTC(2028, 1, 29, 12)]) expect(currentPeriod(at)).toBe(periodOf(new Date(at)));
    expect(periodBounds('2026-12')).toEqual({ start: new Date(Date.UTC(2026, 11, 1)), end: new Date(Date.UTC(2027, 0, 1)) });
  });
});
