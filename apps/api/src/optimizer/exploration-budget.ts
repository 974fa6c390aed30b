// When exploring must stop: the tenant's learning mode forbids it, or a budget is spent (the
// step's exploration cap, the tenant's daily exploration budget, summed over its steps).
import type { DecideInput, LearningMode } from './decide-input.ts';
import type { StepState } from './step-state.ts';

/**
 * How long a tenant's summed daily exploration spend is reused (new probes are added to it as
 * they come): summing walks every probe of every step the tenant has, too much for each
 * explored call. Meanwhile probes that leave the 24 h window still count, which can only stop
 * exploring early, never late.
 */
const DAY_SPEND_TTL_MS = 60_000;

/** Why the tenant's learning mode forbids probing, or undefined when it probes (`serve`, `shadow`). */
export function learningBlock(mode: LearningMode | undefined): string | undefined {
  if (mode === 'off') return 'learning_mode off: no trials, no probes and no judge checks';
  return undefined;
}

/** A tenant's exploration spend over the last day, held for DAY_SPEND_TTL_MS. */
export class ExplorationSpend {
  readonly #daySpends = new Map<string, { at: number; micros: number }>();

  /** Why exploring must stop on this call (a budget is spent), or '' when it may go on. */
  overBudget(s: StepState, input: DecideInput, states: ReadonlyMap<string, StepState>): string {
    if (!input.budget) return '';
    const usd = (m: number) => (m / 1e6).toFixed(2);
    const cap = input.budget.stepMicros;
    // what this process saw it spend, or what its kept probes cost (they outlive a restart)
    if (cap !== undefined && Math.max(s.traffic.exploredMicros, s.evidence.spentSince(0)) >= cap) return `this step's exploration cap (${usd(cap)} USD) is spent`;
    const day = this.#daySpend(input.step.accountId, states);
    if (day >= input.budget.dailyMicros) return `the tenant's daily exploration budget (${usd(input.budget.dailyMicros)} USD) is spent`;
    return '';
  }

  /** A tenant's exploration spend over the last 24 h, summed over its steps at most once a minute. */
  #daySpend(accountId: string, states: ReadonlyMap<string, StepState>): number {
    const now = Date.now();
    const held = this.#daySpends.get(accountId);
    if (held && now - held.at < DAY_SPEND_TTL_MS) return held.micros;
    const since = now - 24 * 3600_000;
    let micros = 0;
    for (const other of states.values()) if (other.key.accountId === accountId) micros += other.evidence.spentSince(since);
    this.#daySpends.set(accountId, { at: now, micros });
    return micros;
  }

  /** A probe was recorded: what it spent joins the tenant's held daily sum. */
  noteProbe(accountId: string, micros: number): void {
    const held = this.#daySpends.get(accountId);
    if (held) held.micros += micros;
  }
}
