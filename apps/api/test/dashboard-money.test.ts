// How the dashboard writes money and retention estimates: every micro-dollar kept (µ$ below a
// cent, never `$0.0000`), and a retention range that never reads below 0 %.
import { describe, expect, it } from 'vitest';
import { retentionRange, usd } from '../../admin-web/src/dashboard/money.ts';

describe('money', () => {
  it('keeps every micro-dollar, in µ$ below a cent', () => {
    expect(usd(0)).toBe('$0');
    expect(usd(0.000008)).toBe('8 µ$');
    expect(usd(0.000128)).toBe('128 µ$');
    expect(usd(-0.000064)).toBe('−64 µ$');
    expect(usd(0.009999)).toBe('9,999 µ$');
    expect(usd(0.01)).toBe('$0.01');
    expect(usd(0.098855)).toBe('$0.098855');
    expect(usd(25)).toBe('$25.00');
    expect(usd(1234.5678)).toBe('$1,234.57');
    // the float a sum of dollars may carry is rounded to its micro-dollar, not shown
    expect(usd(0.1 + 0.2)).toBe('$0.30');
  });
});

describe('retention estimates', () => {
  it('reads as a range from the lower bound, never below 0 %, and says when it was clamped', () => {
    expect(retentionRange(0.963, 0.636)).toEqual({ text: '63.6% – 96.3%', note: null });
    const low = retentionRange(-0.037, -0.636);
    expect(low.text).toBe('0.0%');
    expect(low.note).toMatch(/below 0 %/);
    expect(retentionRange(1.02, 0.988).text).toBe('98.8% – 102.0%');
  });
});
