// Candidates are policies, not only models: one model; or a gate where two cheap
// models answer, agreement is served and disagreement escalates to the baseline.
// Each is priced from evidence (escalations included) and proven like a model.

export type Policy =
  | { kind: 'model'; model: string }
  | { kind: 'gate'; a: string; b: string }
  /** One cheap model answers and the judge checks it; a failing grade escalates to the baseline. */
  | { kind: 'verify'; model: string };

export function policyKey(p: Policy): string {
  if (p.kind === 'gate') return `gate:${p.a}+${p.b}`;
  return `${p.kind}:${p.model}`;
}

export function parsePolicy(key: string): Policy {
  if (key.startsWith('gate:')) {
    const [a, b] = key.slice(5).split('+') as [string, string];
    return { kind: 'gate', a, b };
  }
  if (key.startsWith('verify:')) return { kind: 'verify', model: key.slice(7) };
  return { kind: 'model', model: key.slice(6) };
}

export function policyModels(p: Policy): string[] {
  return p.kind === 'gate' ? [p.a, p.b] : [p.model];
}

export function describePolicy(p: Policy): string {
  if (p.kind === 'gate') return `gate(${p.a} + ${p.b}, escalating to the baseline on disagreement)`;
  if (p.kind === 'verify') return `verify(${p.model}, judged, escalating to the baseline on a failing grade)`;
  return p.model;
}

/** Every single-model policy and every pair gate over the cheaper models. */
export function candidatePolicies(cheaper: string[], allowGates: boolean): Policy[] {
  const out: Policy[] = cheaper.map((model) => ({ kind: 'model' as const, model }));
  if (allowGates) {
    for (const model of cheaper) out.push({ kind: 'verify', model });
    for (let i = 0; i < cheaper.length; i++) for (let j = i + 1; j < cheaper.length; j++) out.push({ kind: 'gate', a: cheaper[i]!, b: cheaper[j]! });
  }
  return out;
}
