// The routing's random draws: the posterior samples of trials, the sampling of probes and of
// graded answers, the judge panel's cross-checks. From the system's generator; from a seeded one
// when ROUTING_SEED is set, so that a benchmark replaying the same calls in the same order
// (bench/routing, --reproducible) makes the same decisions, and two versions of the routing can be
// compared call for call instead of through the scatter of their runs.
import { randomInt } from 'node:crypto';
import { drawsFrom } from './trials.ts';

/** A uniform draw in [0, 1). */
export type Draw = () => number;

export function routingDraws(seed?: number): Draw {
  if (seed === undefined) return () => randomInt(0, 1_000_000) / 1_000_000;
  return drawsFrom((seed % 0x1_0000_0000) / 0x1_0000_0000);
}
