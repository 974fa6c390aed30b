// A call's reasons as structured fields: the routing, pipeline and cache stages write each
// reason as one line of prose (the `reasons` of a call); the calls view reads them as fields
// (what kind of reason, the policy or model it names, the bound it held, the bar and the
// samples behind it) with the line kept as the summary. A line no rule knows stays a `note`.

export type ReasonKind = 'decision' | 'baseline' | 'unproven' | 'exploration' | 'bar' | 'pinned' | 'failover' | 'cache' | 'pruning' | 'check' | 'tier' | 'mode' | 'note';

export interface CallReason {
  kind: ReasonKind;
  /** The reason as the gateway wrote it. */
  summary: string;
  /** The policy or model it names (the one serving, failed over to, or pinned). */
  policy: string | null;
  /** The lower bound of the retention the policy held (a share of the baseline's quality). */
  bound: number | null;
  /** The quality bar the bound was held against. */
  bar: number | null;
  /** Samples behind the bound. */
  samples: number | null;
  /** Other policies or models the reason names (cheaper but unproven ones, a failover's origin). */
  others: string[];
}

const num = (s: string | undefined): number | null => (s === undefined ? null : Number(s));

type Rule = [RegExp, (m: RegExpMatchArray) => Omit<CallReason, 'summary'>];

const none = { policy: null, bound: null, bar: null, samples: null, others: [] as string[] };

const RULES: Rule[] = [
  [/^routed to (.+?) by a mix: .*the mix holds ([\d.]+) ≥ ([\d.]+)/, (m) => ({ ...none, kind: 'decision', policy: m[1]!, bound: num(m[2]), bar: num(m[3]) })],
  [/^routed to (.+?): holds ([\d.]+) ≥ ([\d.]+) of the baseline's quality on (\d+) samples/, (m) => ({ ...none, kind: 'decision', policy: m[1]!, bound: num(m[2]), bar: num(m[3]), samples: num(m[4]) })],
  [/^routed to (\S+): no evidence for this step yet/, (m) => ({ ...none, kind: 'baseline', policy: m[1]! })],
  [/^served by the baseline (\S+): no cheaper policy proven to hold ([\d.]+)/, (m) => ({ ...none, kind: 'baseline', policy: m[1]!, bar: num(m[2]) })],
  [/^cheaper but unproven: (.+)$/, (m) => ({ ...none, kind: 'unproven', others: m[1]!.split('; ') })],
  [/^quality bar ([\d.]+) for step (.+)$/, (m) => ({ ...none, kind: 'bar', bar: num(m[1]) })],
  [/^pinned to (\S+):/, (m) => ({ ...none, kind: 'pinned', policy: m[1]! })],
  [/^failed over from (\S+) \(.+?\) to (\S+) \(/, (m) => ({ ...none, kind: 'failover', policy: m[2]!, others: [m[1]!] })],
  [/^explored: probed (\S+)/, (m) => ({ ...none, kind: 'exploration', policy: m[1]! })],
  [/^(no probe|explored|probe|probing|exploring|exploration|payback|budget)\b/i, () => ({ ...none, kind: 'exploration' })],
  [/^semantic cache|^cache\b|^exact cache/i, () => ({ ...none, kind: 'cache' })],
  [/^pruned \(/, () => ({ ...none, kind: 'pruning' })],
  [/^(verify|confirm|quality gate|drift check|judge measure|vote|best-of)\b/i, () => ({ ...none, kind: 'check' })],
  [/^tier \S+:|^baseline \S+ cannot serve|^skipped as too small/, () => ({ ...none, kind: 'tier' })],
  [/^routing mode |^advanced search off/, () => ({ ...none, kind: 'mode' })],
];

/** One reason line as fields; the line itself is the summary. */
export function reasonFields(summary: string): CallReason {
  for (const [re, make] of RULES) {
    const m = summary.match(re);
    if (m) return { ...make(m), summary };
  }
  return { ...none, kind: 'note', summary };
}
