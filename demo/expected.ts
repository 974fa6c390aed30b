// What a step's users could expect, by the recorded set: every served call scored at the mean its
// policy scores over the step's recorded rows, against the baseline's mean on as many calls. The
// risk budget promises this (the expected retention of the answers served, trials included) at the
// floor; what the answers actually scored scatters around it, by a few answers on a step of 300.
import type { Row } from '../bench/routing/data.ts';
import type { CallRecord } from '../bench/routing/phases.ts';
import { mean } from '../apps/api/src/optimizer/estimates.ts';
import { agree } from '../apps/api/src/optimizer/normalize.ts';
import { parsePolicy, policyModels } from '../apps/api/src/optimizer/policies.ts';

/**
 * What the policy keyed `policy` serves on `row`, by the recorded answers: a model its answer; a gate,
 * a vote or a confirm the first model's answer where the gateway's agreement holds (`agree`), else the
 * baseline's; a verify its model's answer where a judge that grades right passes it, else the
 * baseline's. Null where a model it names has no recorded answer.
 */
export function policyScore(row: Row, policy: string, baseline: string): number | null {
  const p = parsePolicy(policy);
  if (policyModels(p).some((m) => !row.answers[m])) return null;
  const of = (m: string) => row.answers[m]!;
  const base = of(baseline).score;
  const agreed = (first: string, others: readonly string[], all: boolean) => {
    const agrees = others.map((m) => agree(of(first).text, of(m).text));
    return (all ? agrees.every(Boolean) : agrees.some(Boolean)) ? of(first).score : base;
  };
  switch (p.kind) {
    case 'model':
      return of(p.model).score;
    case 'gate':
      return agreed(p.a, [p.b], true);
    case 'vote':
      return agreed(p.models[0]!, p.models.slice(1), true);
    case 'confirm':
      return agreed(p.model, p.by, false);
    case 'verify':
      return of(p.model).score >= 0.5 ? of(p.model).score : base;
  }
}

/** The expected retention of a step's served calls: each at its policy's mean over `rows`, the baseline's mean as the bar. */
export function expectedRetention(records: readonly CallRecord[], rows: readonly Row[], baseline: string): number | null {
  const means = new Map<string, number | null>();
  const meanOf = (policy: string) => {
    if (!means.has(policy)) {
      const scores = rows.map((r) => policyScore(r, policy, baseline));
      means.set(policy, scores.some((s) => s === null) ? null : mean(scores as number[]));
    }
    return means.get(policy)!;
  };
  const bar = meanOf(`model:${baseline}`)!;
  let got = 0;
  let served = 0;
  for (const r of records) {
    if (r.error !== null) continue;
    const m = meanOf(r.trial ?? r.policy ?? `model:${r.served}`);
    if (m === null) return null;
    got += m;
    served++;
  }
  return served > 0 && bar > 0 ? got / (served * bar) : null;
}
