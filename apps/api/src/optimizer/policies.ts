// Candidates are policies, not only models. Each is priced from evidence
// (escalations included) and proven like a model:
//   model    one model answers;
//   gate     two cheap models answer; agreement is served, disagreement escalates to the baseline;
//   confirm  a cheap model answers and is served when a confirmer agrees with it; the
//            confirmers are asked one after another (the first alongside it), and when
//            none agrees the call escalates to the baseline;
//   vote     three cheap models answer; served only when all agree, else the baseline;
//   verify   a cheap model answers and the judge checks it; a failing grade escalates.

export type Policy =
  | { kind: 'model'; model: string }
  | { kind: 'gate'; a: string; b: string }
  | { kind: 'confirm'; model: string; by: string[] }
  | { kind: 'vote'; models: string[] }
  | { kind: 'verify'; model: string };

export function policyKey(p: Policy): string {
  switch (p.kind) {
    case 'gate':
      return `gate:${p.a}+${p.b}`;
    case 'confirm':
      return `confirm:${p.model}<${p.by.join(',')}`;
    case 'vote':
      return `vote:${p.models.join('+')}`;
    default:
      return `${p.kind}:${p.model}`;
  }
}

export function parsePolicy(key: string): Policy {
  if (key.startsWith('gate:')) {
    const [a, b] = key.slice(5).split('+') as [string, string];
    return { kind: 'gate', a, b };
  }
  if (key.startsWith('confirm:')) {
    const rest = key.slice(8);
    const lt = rest.indexOf('<');
    return { kind: 'confirm', model: rest.slice(0, lt), by: rest.slice(lt + 1).split(',') };
  }
  if (key.startsWith('vote:')) return { kind: 'vote', models: key.slice(5).split('+') };
  if (key.startsWith('verify:')) return { kind: 'verify', model: key.slice(7) };
  return { kind: 'model', model: key.slice(6) };
}

export function policyModels(p: Policy): string[] {
  switch (p.kind) {
    case 'gate':
      return [p.a, p.b];
    case 'confirm':
      return [p.model, ...p.by];
    case 'vote':
      return p.models;
    default:
      return [p.model];
  }
}

/** The model whose answer the policy serves when it does not escalate. */
export function primaryModel(p: Policy): string {
  if (p.kind === 'gate') return p.a;
  if (p.kind === 'vote') return p.models[0]!;
  return p.model;
}

export function describePolicy(p: Policy): string {
  switch (p.kind) {
    case 'gate':
      return `gate(${p.a} + ${p.b}, escalating to the baseline on disagreement)`;
    case 'confirm':
      return `confirm(${p.model}, served when ${p.by.join(' or else ')} agrees, else the baseline)`;
    case 'vote':
      return `vote(${p.models.join(' + ')}, served when all agree, else the baseline)`;
    case 'verify':
      return `verify(${p.model}, judged, escalating to the baseline on a failing grade)`;
    default:
      return p.model;
  }
}

/**
 * Every single-model policy; with ensembles allowed (not on streams), every verify, every
 * pair gate over the cheaper models, and confirm / vote policies over the `pool` (the
 * step's best cheap models by evidence; defaults to the cheapest).
 */
export function candidatePolicies(cheaper: string[], allowGates: boolean, pool: string[] = cheaper): Policy[] {
  const out: Policy[] = cheaper.map((model) => ({ kind: 'model' as const, model }));
  if (!allowGates) return out;
  for (const model of cheaper) out.push({ kind: 'verify', model });
  for (let i = 0; i < cheaper.length; i++) for (let j = i + 1; j < cheaper.length; j++) out.push({ kind: 'gate', a: cheaper[i]!, b: cheaper[j]! });
  const best = pool.filter((m) => cheaper.includes(m));
  for (const p of best)
    for (const h1 of best)
      for (const h2 of best) if (p !== h1 && p !== h2 && h1 !== h2) out.push({ kind: 'confirm', model: p, by: [h1, h2] });
  for (let i = 0; i < best.length; i++)
    for (let j = i + 1; j < best.length; j++) for (let k = j + 1; k < best.length; k++) out.push({ kind: 'vote', models: [best[i]!, best[j]!, best[k]!] });
  return out;
}
