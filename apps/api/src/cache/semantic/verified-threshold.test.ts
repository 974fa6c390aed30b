// The verification-driven threshold: nothing is served before the record proves the bound,
// the learned threshold sits where the wrong share's upper bound meets the tenant's bound,
// a stricter bound serves less, sampled checks keep the served range honest, and a
// neighbourhood that starts failing loses its serving range.
import { describe, expect, it } from 'vitest';
import { VerifiedThreshold, wilsonUpper } from './verified-threshold.ts';

describe('wilsonUpper', () => {
  it('is 1 with no evidence and falls as clean evidence grows', () => {
    expect(wilsonUpper(0, 0, 1.645)).toBe(1);
    expect(wilsonUpper(0, 100, 1.645)).toBeGreaterThan(0.01);
    expect(wilsonUpper(0, 300, 1.645)).toBeLessThan(0.01);
    expect(wilsonUpper(5, 100, 1.645)).toBeGreaterThan(0.05);
  });
});

describe('VerifiedThreshold', () => {
  it('serves nothing until the verified record supports the bound', () => {
    const v = new VerifiedThreshold({ bound: 0.01, sampleRate: 0 });
    expect(v.decide(0.99, 0.5)).toEqual({ action: 'verify', threshold: Number.POSITIVE_INFINITY, why: 'unproven' });
    for (let i = 0; i < 100; i++) v.record(0.97, true);
    expect(v.decide(0.99, 0.5).action).toBe('verify'); // 100 clean checks: the upper bound is still over 1 %
    for (let i = 0; i < 250; i++) v.record(0.97, true);
    expect(v.threshold()).toBe(0.9); // every record clean: the whole range down to the floor is proven
    expect(v.decide(0.95, 0.5).action).toBe('serve');
    expect(v.decide(0.85, 0.5).action).toBe('miss');
  });

  it('learns the lowest threshold whose served range stays within the bound', () => {
    const v = new VerifiedThreshold({ bound: 0.02, sampleRate: 0 });
    // Above 0.96: right every time; 0.92–0.96: one in five wrong.
    for (let i = 0; i < 600; i++) v.record(0.96 + (i % 40) / 1000, true);
    for (let i = 0; i < 200; i++) v.record(0.92 + (i % 40) / 1000, i % 5 !== 0);
    const t = v.threshold();
    expect(t).toBeGreaterThan(0.92);
    expect(t).toBeLessThanOrEqual(0.96);
    expect(v.decide(0.93, 0.5).action).toBe('verify');
    expect(v.decide(0.97, 0.5).action).toBe('serve');
  });

  it('a stricter bound serves from a higher threshold', () => {
    const loose = new VerifiedThreshold({ bound: 0.05, sampleRate: 0 });
    const strict = new VerifiedThreshold({ bound: 0.01, sampleRate: 0 });
    for (let i = 0; i < 2000; i++) {
      const s = 0.9 + (i % 100) / 1000; // 0.900–0.999
      const correct = !(s < 0.95 && i % 10 === 0); // wrong ones only under 0.95
      loose.record(s, correct);
      strict.record(s, correct);
    }
    expect(strict.threshold()).toBeGreaterThan(loose.threshold());
    expect(strict.threshold()).toBeGreaterThanOrEqual(0.93);
  });

  it('verifies a sampled share inside the serving range and reports its observed error', () => {
    const v = new VerifiedThreshold({ bound: 0.01, sampleRate: 0.1 });
    for (let i = 0; i < 400; i++) v.record(0.98, true);
    expect(v.decide(0.98, 0.05)).toMatchObject({ action: 'verify', why: 'sampled' });
    expect(v.decide(0.98, 0.5).action).toBe('serve');
    v.record(0.98, true, true);
    v.record(0.98, false, true);
    const st = v.stats();
    expect(st).toMatchObject({ bound: 0.01, served_checked: 2, served_wrong: 1, observed_error: 0.5, verified: 402, verified_wrong: 1 });
  });

  it('a neighbourhood whose hits start failing loses its serving range', () => {
    const v = new VerifiedThreshold({ bound: 0.01, sampleRate: 0 });
    for (let i = 0; i < 400; i++) v.record(0.95, true);
    expect(v.decide(0.95, 0.5).action).toBe('serve');
    for (let i = 0; i < 10; i++) v.record(0.95, false, true);
    expect(v.threshold()).toBe(Number.POSITIVE_INFINITY);
    expect(v.decide(0.99, 0.5).action).toBe('verify');
  });

  it('keeps only the most recent records, so old evidence ages out', () => {
    const v = new VerifiedThreshold({ bound: 0.01, sampleRate: 0, maxRecords: 300 });
    for (let i = 0; i < 50; i++) v.record(0.95, false);
    for (let i = 0; i < 300; i++) v.record(0.95, true);
    expect(v.stats().verified).toBe(300);
    expect(v.stats().verified_wrong).toBe(0);
    expect(v.decide(0.95, 0.5).action).toBe('serve');
  });

  it('refuses a bound outside (0, 1)', () => {
    expect(() => new VerifiedThreshold({ bound: 0 })).toThrow(RangeError);
    expect(() => new VerifiedThreshold({ bound: 1 })).toThrow(RangeError);
  });
});
