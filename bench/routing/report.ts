// Turns the call records into the phase metrics, the readable summary and the one-line JSON result.
import { MIX_MARGIN } from '../../apps/api/src/optimizer/mix.ts';
import type { CallRecord } from './phases.ts';
import { retention, saving, sum, type KnownMix, type OneModelPerStep, type LineResult } from './reference.ts';
import { unprovenShare } from './trials.ts';

export interface StepMetrics {
  calls: number;
  errors: number;
  retention: number | null;
  saving: number;
  /** Most frequently served model. */
  chosen: string | null;
  served: Record<string, number>;
  baseline_cost: number;
  actual_cost: number;
  exploration_cost: number;
  /** Saving priced from the recording (served model's recorded usage × price vs the baseline's). */
  replay_saving: number;
  /** What the baseline's own recorded answers would have cost. */
  recorded_baseline_cost: number;
  /** Everything the vendor was paid for these calls, their learning after the answer included. */
  vendor_cost: number;
  /** 1 − all spend (vendor_cost) / recorded baseline cost: the saving comparable to the reference lines. */
  true_saving: number;
  /** Share of the calls an unproven policy served (x-optimizer-trial). */
  unproven_share: number;
}

export interface PhaseMetrics extends StepMetrics {
  unmatched: number;
  cache_hits: number;
  reported: number;
  per_step: Record<string, StepMetrics>;
}

export function mostServed(counts: Record<string, number>): string | null {
  let best: string | null = null;
  for (const m of Object.keys(counts).sort()) if (best === null || counts[m]! > counts[best]!) best = m;
  return best;
}

function stepMetrics(rs: readonly CallRecord[]): StepMetrics {
  const served: Record<string, number> = {};
  for (const r of rs) if (r.served !== null) served[r.served] = (served[r.served] ?? 0) + 1;
  const b = sum(rs.map((r) => r.baseline_cost));
  const a = sum(rs.map((r) => r.actual_cost));
  const ok = rs.filter((r) => r.error === null);
  return {
    calls: rs.length,
    errors: rs.length - ok.length,
    // A failed call scores 0: the caller got no answer.
    retention: retention(
      rs.map((r) => r.score),
      rs.map((r) => r.baselineScore),
    ),
    saving: saving(a, b),
    chosen: mostServed(served),
    served,
    baseline_cost: b,
    actual_cost: a,
    exploration_cost: sum(rs.map((r) => r.exploration_cost)),
    replay_saving: saving(sum(ok.map((r) => r.replay_cost)), sum(ok.map((r) => r.replay_baseline_cost))),
    recorded_baseline_cost: sum(rs.map((r) => r.replay_baseline_cost)),
    vendor_cost: sum(rs.map((r) => r.vendor_cost)),
    // all spend (served, gates, escalations, and the learning after the answer: probes, shadows, judge) against
    // what the baseline's own recorded answers cost; the answer's own block holds only what chose the answer
    true_saving: saving(
      sum(rs.map((r) => r.vendor_cost)),
      sum(rs.map((r) => r.replay_baseline_cost)),
    ),
    unproven_share: unprovenShare(rs),
  };
}

export function phaseMetrics(rs: readonly CallRecord[]): PhaseMetrics {
  const per_step: Record<string, StepMetrics> = {};
  for (const step of [...new Set(rs.map((r) => r.step))].sort()) per_step[step] = stepMetrics(rs.filter((r) => r.step === step));
  return {
    ...stepMetrics(rs),
    unmatched: rs.filter((r) => r.error === null && r.unmatched).length,
    cache_hits: rs.filter((r) => r.cache_hit).length,
    reported: rs.filter((r) => r.reported).length,
    per_step,
  };
}

export interface DriftInfo {
  model: string;
  step: string;
  detected: boolean;
  resettled: boolean;
  /** null when GET /v1/workflows/:id/events answered 404. */
  events: Record<string, number> | null;
  retention_before: number | null;
  retention_after: number | null;
}

export interface Result {
  /** Against the baseline's recorded cost, all spend included (comparable to the reference lines). */
  saving_test: number;
  /** The same from the gateway's own optimizer blocks (baseline priced at the served answer's tokens). */
  saving_test_reported: number;
  retention_test: number | null;
  per_step: Record<string, { retention: number | null; saving: number; saving_reported: number; chosen: string | null; unproven_share: number }>;
  saving_total: number;
  exploration_share: number;
  /** Share of the calls an unproven policy served (x-optimizer-trial): test phase, and both phases. */
  unproven_share_test: number;
  unproven_share_total: number;
  /** Per step, the index (1-based, over its calls of both phases) of the first call a proven non-baseline policy served. */
  first_proven_call: Record<string, number | null>;
  /** Share of all spend the vendor was paid outside what the answers' optimizer blocks report (learning after the answer). */
  spend_after_answers: number;
  drift?: { detected: boolean; resettled: boolean };
  reference: { one_model_per_step: { saving: number; retention: number | null }; known_mix: { saving: number; retention: number | null }; oracle: { saving: number } };
  floor: number;
  outcome_rate: number;
  judge_noise: number;
  calls: number;
  seconds: number;
}

const r4 = (x: number): number => Math.round(x * 1e4) / 1e4;
const r4n = (x: number | null): number | null => (x === null ? null : r4(x));

export function buildResult(p: {
  train: PhaseMetrics;
  test: PhaseMetrics;
  drift: DriftInfo | undefined;
  oneModel: OneModelPerStep;
  knownMix: KnownMix;
  oracle: LineResult;
  firstProven: Record<string, number | null>;
  floor: number;
  outcomeRate: number;
  judgeNoise: number;
  seconds: number;
}): Result {
  const { train, test } = p;
  const per_step: Result['per_step'] = {};
  for (const [step, m] of Object.entries(test.per_step)) {
    per_step[step] = { retention: r4n(m.retention), saving: r4(m.true_saving), saving_reported: r4(m.saving), chosen: m.chosen, unproven_share: r4(m.unproven_share) };
  }
  const calls = train.calls + test.calls;
  const vendor = train.vendor_cost + test.vendor_cost;
  return {
    saving_test: r4(test.true_saving),
    saving_test_reported: r4(test.saving),
    retention_test: r4n(test.retention),
    per_step,
    saving_total: r4(saving(vendor, train.recorded_baseline_cost + test.recorded_baseline_cost)),
    exploration_share: r4(test.actual_cost > 0 ? test.exploration_cost / test.actual_cost : 0),
    unproven_share_test: r4(test.unproven_share),
    unproven_share_total: r4(calls > 0 ? (train.unproven_share * train.calls + test.unproven_share * test.calls) / calls : 0),
    first_proven_call: p.firstProven,
    spend_after_answers: r4(vendor > 0 ? 1 - (train.actual_cost + test.actual_cost) / vendor : 0),
    ...(p.drift ? { drift: { detected: p.drift.detected, resettled: p.drift.resettled } } : {}),
    reference: {
      one_model_per_step: { saving: r4(p.oneModel.saving), retention: r4n(p.oneModel.retention) },
      known_mix: { saving: r4(p.knownMix.saving), retention: r4n(p.knownMix.retention) },
      oracle: { saving: r4(p.oracle.saving) },
    },
    floor: p.floor,
    outcome_rate: p.outcomeRate,
    judge_noise: p.judgeNoise,
    calls,
    seconds: Math.round(p.seconds * 10) / 10,
  };
}

const pct = (x: number | null): string => (x === null ? '—' : `${(x * 100).toFixed(1)}%`);
const usd = (x: number): string => `$${x.toFixed(4)}`;

function table(head: string[], rows: string[][]): string[] {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join('  ');
  return [line(head), w.map((n) => '-'.repeat(n)).join('  '), ...rows.map(line)];
}

function phaseTable(m: PhaseMetrics, firstProven: Record<string, number | null>): string[] {
  const first = (name: string) => (name === 'all' ? '' : String(firstProven[name] ?? '—'));
  const row = (name: string, s: StepMetrics) => [
    name,
    String(s.calls),
    String(s.errors),
    pct(s.true_saving),
    pct(s.saving),
    pct(s.retention),
    usd(s.recorded_baseline_cost),
    usd(s.vendor_cost),
    usd(s.actual_cost),
    usd(s.exploration_cost),
    pct(s.replay_saving),
    pct(s.unproven_share),
    first(name),
    s.chosen ?? '—',
  ];
  return table(
    ['step', 'calls', 'errors', 'saving', 'reported saving', 'retention', 'baseline $', 'spent $', 'answers $', 'exploration $', 'served-model saving', 'unproven', 'first proven call', 'most served'],
    [...Object.entries(m.per_step).map(([k, s]) => row(k, s)), row('all', m)],
  );
}

export function renderSummary(p: {
  result: Result;
  train: PhaseMetrics;
  test: PhaseMetrics;
  drift: DriftInfo | undefined;
  oneModel: OneModelPerStep;
  knownMix: KnownMix;
  firstProven: Record<string, number | null>;
  notes: string[];
}): string[] {
  const { result, train, test, drift, oneModel, knownMix } = p;
  const out: string[] = [];
  out.push('', '## Tuning phase (train)', ...phaseTable(train, p.firstProven));
  out.push('', '## Measured phase (test)', ...phaseTable(test, p.firstProven));
  const servedMix = Object.entries(test.served)
    .sort((a, b) => b[1] - a[1])
    .map(([m, n]) => `${m} ${n}`)
    .join(', ');
  out.push(`served in test: ${servedMix || '—'}`);
  out.push(`cache hits: train ${train.cache_hits}, test ${test.cache_hits}; answers matching no recording: train ${train.unmatched}, test ${test.unmatched}`);
  out.push('', '## Reference lines (from the data, no gateway)');
  out.push(
    ...table(
      ['line', 'saving', 'retention', 'choice'],
      [
        [`one model per step @ floor ${result.floor}`, pct(oneModel.saving), pct(oneModel.retention), Object.entries(oneModel.per_step).map(([s, v]) => `${s}→${v.chosen}`).join(', ')],
        [
          `one policy per step, train known, mixed to ${result.floor} + ${MIX_MARGIN}`,
          pct(knownMix.saving),
          pct(knownMix.retention),
          Object.entries(knownMix.per_step).map(([s, v]) => `${s}→${v.policy}${v.share < 1 ? ` on ${pct(v.share)}, ${v.beside} on the rest` : ''}`).join('; '),
        ],
        ['per-prompt oracle', pct(result.reference.oracle.saving), pct(1), 'cheapest model matching the baseline score per prompt'],
      ],
    ),
  );
  if (drift) {
    out.push('', '## Drift');
    out.push(`degraded ${drift.model} on ${drift.step} halfway through test; retention on ${drift.step}: before ${pct(drift.retention_before)}, after ${pct(drift.retention_after)}`);
    out.push(drift.events === null ? 'workflow events: GET /v1/workflows/:id/events answered 404' : `workflow events: ${JSON.stringify(drift.events)} → drift ${drift.detected ? 'detected' : 'NOT detected'}, ${drift.resettled ? 'resettled' : 'NOT resettled'}`);
  }
  out.push('', '## Headline');
  out.push(
    `test saving ${pct(result.saving_test)} at retention ${pct(result.retention_test)} (floor ${result.floor}); total saving ${pct(result.saving_total)}; ` +
      `exploration ${pct(result.exploration_share)} of test spend; ${result.calls} calls in ${result.seconds} s`,
  );
  out.push(
    `served by unproven policies: ${pct(result.unproven_share_test)} of test calls, ${pct(result.unproven_share_total)} of all; ` +
      `first proven cheaper call per step: ${Object.entries(result.first_proven_call).map(([s, n]) => `${s} ${n ?? 'never'}`).join(', ') || '—'}; ` +
      `spend after the answers (learning): ${pct(result.spend_after_answers)} of all spend`,
  );
  out.push(
    `reference: one model per step ${pct(result.reference.one_model_per_step.saving)} at ${pct(result.reference.one_model_per_step.retention)}; ` +
      `one policy per step, train known ${pct(result.reference.known_mix.saving)} at ${pct(result.reference.known_mix.retention)}; oracle ${pct(result.reference.oracle.saving)}`,
  );
  for (const n of p.notes) out.push(`note: ${n}`);
  return out;
}
