// A step's policy key (`model:…`, `gate:…+…`, `confirm:…<…`, `vote:…+…`, `verify:…`, or a
// `mix:` of two) as the registry reports it in `chosen`, read for people: the model whose
// answer the policy serves when it does not escalate.

/** The model a policy key serves (`model:claude-haiku-4-5` → `claude-haiku-4-5`); null for none. */
export function policyModel(policy: string | null | undefined): string | null {
  if (!policy) return null;
  const colon = policy.indexOf(':');
  if (colon < 0) return policy;
  const kind = policy.slice(0, colon);
  const rest = policy.slice(colon + 1);
  switch (kind) {
    case 'mix':
      // mix:<under>@<share>|<over>: the policy taking the share is the one being tried
      return policyModel(rest.slice(0, rest.lastIndexOf('@')));
    case 'gate':
    case 'vote':
      return rest.split('+')[0] ?? null;
    case 'confirm':
      return rest.split('<')[0] ?? null;
    default:
      return rest;
  }
}
