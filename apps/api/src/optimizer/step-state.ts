// A step's state in the optimizer's memory: its evidence, whether it settled and on what, its
// routed traffic and learning ledger, made on first use; and the sweep that drops the states of
// releases a newer one replaced.
import type { StepKey } from './decide-input.ts';
import { StepEvidence } from './evidence.ts';
import { newKindTally, readKind, type KindTally } from './step-kind.ts';
import type { StepTraffic } from './prospects.ts';
import { newLedger, type RiskLedger } from './trials.ts';

/** A step's state for an older release leaves memory once a newer release of it has taken over for this long. */
const SUPERSEDED_IDLE_MS = 24 * 3600_000;

export interface StepState {
  key: StepKey;
  evidence: StepEvidence;
  settled: boolean;
  /** Re-opened by drift and not settled since (settling then is a `resettled` event). */
  resettling: boolean;
  /** The step's routed traffic (this process's view): calls and their baseline cost. */
  traffic: StepTraffic;
  /** The last decision's best payback and probing rate, for the step view. */
  lastPlan: { payback: number; rate: number; funded?: boolean };
  /** Models whose evidence a drift wiped; re-opened, the step re-verifies only them. */
  drifted: string[];
  reopenedAt: number;
  chosen: string;
  /** Calls served by the step's mix, and how many of them its cheaper side served (keeps the split even). */
  mixCounts: { mix: string; under: number; total: number };
  /** Calls served since the step last settled (paces drift checks). */
  settledCalls: number;
  /** When the step was last decided, graded or probed (for loaded evidence: the row's time), in ms. */
  lastUsed: number;
  /** Learning by serving: the quality-risk budget's ledger, and the share of it the trials used at the last decision. */
  ledger: RiskLedger;
  riskUsed: number;
  /** What the step's first calls asked for, where they declare no kind (step-kind.ts). */
  kinds: KindTally;
  /** The last decision's view of its candidates, for the step registry. */
  view: CandidateView[];
  /** The last decision's candidates as the evidence reads now, for the step view: a grade that landed after the step's last call counts. */
  currentView: () => CandidateView[];
}

export interface CandidateView {
  policy: string;
  n: number;
  retention: number;
  lcb: number;
  cost_share: number;
  by_judge?: { retention: number; n: number };
  by_outcome?: { retention: number; n: number };
}

export function stepId(k: StepKey): string {
  return `${k.workflowId}|${k.fingerprint}|${k.release}`;
}

/** A new step's state; `at` is when it is first used (a loaded row's own time). */
export function newStepState(k: StepKey, at: number): StepState {
  return { key: k, evidence: new StepEvidence(), settled: false, resettling: false, traffic: { calls: 0, baselineMicros: 0, actualMicros: 0, exploredMicros: 0, outcomes: 0 }, lastPlan: { payback: 0, rate: 0 }, drifted: [], reopenedAt: 0, chosen: '', view: [], currentView: () => [], settledCalls: 0, lastUsed: at, mixCounts: { mix: '', under: 0, total: 0 }, ledger: newLedger(), riskUsed: 0, kinds: newKindTally() };
}

/** The step's kind of work: the one its calls declare, else the one read from what they ask for. */
export function stepKind(s: StepState): string | undefined {
  return s.key.kind ?? readKind(s.kinds);
}

/** The share of the step's routed calls whose outcome the client reported (judge-graded trials and checks are not outcomes). */
export function recentOutcomeShare(s: StepState): number {
  return s.traffic.calls > 0 ? Math.min(1, s.traffic.outcomes / s.traffic.calls) : 0;
}

/**
 * Drops the states of releases a newer release of the same step has replaced for a day:
 * each deploy starts fresh states for every step, and the old ones would otherwise stay in
 * memory with their probes for the life of the process. Their evidence stays stored; a
 * restart reads it back (and a rollback to that release starts learning again).
 */
export function dropSuperseded(states: Map<string, StepState>, now: number): number {
  const newest = new Map<string, StepState>();
  const group = (k: StepKey) => `${k.accountId}|${k.workflowId}|${k.fingerprint}`;
  for (const st of states.values()) {
    const g = group(st.key);
    const cur = newest.get(g);
    if (!cur || st.lastUsed > cur.lastUsed) newest.set(g, st);
  }
  let dropped = 0;
  for (const [id, st] of states) {
    if (newest.get(group(st.key)) === st || now - st.lastUsed < SUPERSEDED_IDLE_MS) continue;
    states.delete(id);
    dropped++;
  }
  return dropped;
}
