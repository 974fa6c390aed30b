// What a user lives through while a step learns by serving: the share of calls an unproven
// policy answered (the gateway marks them with x-optimizer-trial), and how many calls a step
// takes before it first serves a proven policy cheaper than the baseline. Pure functions of the
// call records, in the order the calls were sent.

/** The fields of a call record these metrics read. */
export interface TrialCall {
  step: string;
  /** The model the gateway says it served; null when the call failed. */
  served: string | null;
  /** The x-optimizer-trial policy key; null when a proven policy or the baseline served. */
  trial: string | null;
}

/** Share of `calls` that carried x-optimizer-trial; 0 when there are none. */
export function unprovenShare(calls: readonly TrialCall[]): number {
  if (calls.length === 0) return 0;
  return calls.filter((c) => c.trial !== null).length / calls.length;
}

/** Whether a proven policy other than the baseline answered: a model other than the baseline, and no trial header. */
export function servedProven(call: TrialCall, baseline: string): boolean {
  return call.trial === null && call.served !== null && call.served !== baseline;
}

/**
 * Per step, the 1-based index, counted over that step's calls in the order given (pass the
 * tuning phase's calls, then the measured phase's), of the first call a proven non-baseline
 * policy served; null when none did. Failed calls count as calls: the user made them.
 */
export function firstProvenCall(calls: readonly TrialCall[], baseline: string): Record<string, number | null> {
  const seen = new Map<string, number>();
  const first: Record<string, number | null> = {};
  for (const c of calls) {
    const n = (seen.get(c.step) ?? 0) + 1;
    seen.set(c.step, n);
    if (!(c.step in first)) first[c.step] = null;
    if (first[c.step] === null && servedProven(c, baseline)) first[c.step] = n;
  }
  return Object.fromEntries(Object.keys(first).sort().map((s) => [s, first[s]!]));
}
