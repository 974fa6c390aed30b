import { describe, expect, it } from 'vitest';
import { routingDraws } from './draws.ts';

describe('the routing draws', () => {
  it('are uniform draws in [0, 1) from the system generator without a seed, unrepeatable', () => {
    const a = routingDraws();
    const b = routingDraws();
    const xs = Array.from({ length: 2000 }, a);
    for (const x of xs) expect(x >= 0 && x < 1).toBe(true);
    expect(Math.abs(xs.reduce((s, x) => s + x, 0) / xs.length - 0.5)).toBeLessThan(0.05);
    expect(Array.from({ length: 20 }, b)).not.toEqual(xs.slice(0, 20));
  });

  it('repeat the same sequence for the same seed, and another for another seed', () => {
    const seq = (seed: number) => Array.from({ length: 50 }, routingDraws(seed));
    expect(seq(7)).toEqual(seq(7));
    expect(seq(8)).not.toEqual(seq(7));
    for (const x of seq(0)) expect(x >= 0 && x < 1).toBe(true);
    const xs = Array.from({ length: 2000 }, routingDraws(3));
    expect(Math.abs(xs.reduce((s, x) => s + x, 0) / xs.length - 0.5)).toBeLessThan(0.05);
  });
});
