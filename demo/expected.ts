// What a step's users could expect, by the recorded set: every served call scored at the mean its
// policy scores over the step's recorded rows, against the baseline's mean on as many calls. The
// risk budget promises this (the expected retention of the answers served, trials included) at the
// floor; what the answers actually scored scatters around it, by a few answers on a step of 300.
import type { Row } from '../bench/routing/data.ts';
import type { CallRecord } from '../bench/routing/phases.ts';

const norm = (s: string) => s.trim().toLowerCase();

/** What `policy` (a policy key: `model:m`, `gate:a+b`) scores on `row`; null for a policy the recording cannot replay. */
export function policyScore(row: Row, policy: string, baseline: string): number | null {
  const [kind, rest = ''] = policy.split(/:(.*)/s, 2) as [string, string?];
  if (kind === 'model') return row.answers[rest]?.score ?? null;
  if (kind !== 'gate') return null;
  const [a, b] = rest.split('+').map((m) => row.answers[m]);
  if (!a || !b) return null;
  // the two cheap answers agree: the first serves; else the call escalates to the baseline
  return norm(a.text) === norm(b.text) ? a.score : row.answers[baseline]!.score;
}

/** The expected retention of a step's served calls: each at its policy's mean over `rows`, the baseline's mean as the bar. */
export function expectedRetention(records: readonly CallRecord[], rows: readonly Row[], baseline: string): number | null {
  const means = new Map<string, number | null>();
  const mean = (policy: string) => {
    if (!means.has(policy)) {
      const scores = rows.map((r) => policyScore(r, policy, baseline));
      means.set(policy, scores.some((s) => s === null) ? null : scores.reduce<number>((a, s) => a + s!, 0) / rows.length);
    }
    return means.get(policy)!;
  };
  const bar = mean(`model:${baseline}`)!;
  let got = 0;
  let served = 0;
  for (const r of records) {
    if (r.error !== null) continue;
    const m = mean(r.trial ?? r.policy ?? `model:${r.served}`);
    if (m === null) return null;
    got += m;
    served++;
  }
  return served > 0 && bar > 0 ? got / (served * bar) : null;
}
