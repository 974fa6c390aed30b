// Serving the multi-model policies (gate, confirm, vote): which cheap answers to ask
// for, in what order, and when their agreement is enough to serve one of them rather
// than escalate to the baseline. The caller supplies how a model is run.
import { agree } from '../optimizer/normalize.ts';
import type { Policy } from '../optimizer/policies.ts';

export type Ensemble = Extract<Policy, { kind: 'gate' | 'confirm' | 'vote' }>;

export interface EnsembleDeps<T extends { answer: string }> {
  /** Runs one named candidate (a model, or `model@effort`). */
  run(name: string): Promise<T>;
  /** Whether an answer passes the quality gate (well-formed, not truncated, not a refusal). */
  usable(answer: T): boolean;
  baseline: string;
  /** The call's reasons, which say what the policy did. */
  reasons: string[];
}

export async function serveEnsemble<T extends { answer: string }>(p: Ensemble, d: EnsembleDeps<T>): Promise<T> {
  if (p.kind === 'confirm') {
    // the first confirmer answers alongside; each further one only while none has agreed
    const [a, first] = await Promise.all([d.run(p.model), d.run(p.by[0]!)]);
    for (let i = 0; d.usable(a) && i < p.by.length; i++) {
      const h = i === 0 ? first : await d.run(p.by[i]!);
      if (agree(a.answer, h.answer)) {
        d.reasons.push(`confirm: ${p.by[i]} agrees with ${p.model}; serving ${p.model}'s answer`);
        return a;
      }
    }
    d.reasons.push(`confirm: no confirmer agrees with ${p.model}; escalated to ${d.baseline}`);
    return d.run(d.baseline);
  }
  const names = p.kind === 'gate' ? [p.a, p.b] : p.models;
  const answers = await Promise.all(names.map((m) => d.run(m)));
  const first = answers[0]!;
  if (answers.every((c) => agree(c.answer, first.answer)) && d.usable(first)) {
    d.reasons.push(`${p.kind}: ${names.join(' and ')} agree; serving ${names[0]}'s answer`);
    return first;
  }
  d.reasons.push(`${p.kind}: ${names.join(' and ')} disagree; escalated to ${d.baseline}`);
  return d.run(d.baseline);
}
