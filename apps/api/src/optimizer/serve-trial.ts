// The step's side of learning by serving (trials.ts): which of its open candidates may be tried
// on this call, what each is believed to be and to cost, and the step's risk ledger as the
// decision reads and writes it.
import type { StepEvidence, PolicyStats } from './evidence.ts';
import type { DecideInput } from './decide-input.ts';
import { MIN_EVIDENCE } from './exploration.ts';
import { describePolicy, parsePolicy, policyKey, policyModels, type Policy } from './policies.ts';
import { GATE_LIFT, gateRange, halfWidth, outcomesCome, priorStart, prospect, type ProbeCosts } from './prospects.ts';
import { budgetUsed, chooseTrial, judgePrior, MIN_TRIALS, spend, TRIAL_PRIOR_SD, trialPosterior, type Posterior, type RiskLedger, type TrialCandidate, type TrialChoice } from './trials.ts';
import { pooledFrom, tenantPrior, without } from './trial-pool.ts';
import type { TenantOutcomes } from './candidate-stats.ts';

/** Outcomes a candidate needs on its trials before posterior sampling reads them (fewer than a policy's proof needs). */
const EARLY_OUTCOMES = 3;
/**
 * Samples past which a candidate is no longer unproven but known, once its estimate is also narrow
 * enough (KNOWN_SPREAD): what its evidence says decides (it holds, serves its share of a mix, or is
 * closed), and serving it more as a trial would only overserve a policy the mix already gives its share.
 */
const KNOWN_SAMPLES = MIN_EVIDENCE;

export interface TrialContext {
  evidence: StepEvidence;
  ledger: RiskLedger;
  input: DecideInput;
  /** Every candidate policy weighed on this call, with its statistics (shrunk toward the tenant's prior where one exists). */
  stats: ReadonlyMap<string, PolicyStats>;
  /** The step's own statistics, by policy key (where a gate starts). */
  own: ReadonlyMap<string, PolicyStats>;
  costs: ProbeCosts;
  baselineCost: number;
  /** The clients' outcomes on each policy in every step of the tenant (of the same kind), and this step's fingerprint among them. */
  tenant?: { outcomes: ReadonlyMap<string, TenantOutcomes>; fingerprint: string };
}

/**
 * The standard error under which a candidate with KNOWN_SAMPLES is known where outcomes come. Wider,
 * its evidence does not decide yet (its sources disagree, or its outcomes are few 0/1 reads against a
 * baseline right half the time), and serving it is still how it is learned, for free. Where no outcomes
 * come a trial is graded at a probe's price, and a candidate still unsure at KNOWN_SAMPLES is left to
 * the payback rule, which weighs what its proof would cost.
 */
export const KNOWN_SPREAD = 0.1;

/**
 * Whether a candidate can be tried by serving it: a model or a gate not yet known by its evidence.
 * `freeEvidence`: outcomes come on the step, so a trial teaches for free.
 */
export function triable(p: Policy, st: PolicyStats | undefined, freeEvidence: boolean): boolean {
  if (p.kind !== 'model' && p.kind !== 'gate') return false;
  if (!st || st.n < KNOWN_SAMPLES) return true;
  return freeEvidence && halfWidth(st) > KNOWN_SPREAD;
}

/** One candidate as posterior sampling sees it, or null where it cannot be tried by serving it (its kind, or its evidence knows it). */
function asCandidate(t: TrialContext, p: Policy): TrialCandidate | null {
  return triable(p, t.stats.get(policyKey(p)), outcomesCome(t.costs)) ? described(t, p) : null;
}

/** What the step knows of a model or a gate, tried or not: its prior, its evidence, its cost. */
function described(t: TrialContext, p: Policy): TrialCandidate | null {
  // a verify policy grades on the request path, a vote or a confirm adds turns: only models and gates are tried
  const key = policyKey(p);
  const st = t.stats.get(key);
  if (!st || (p.kind !== 'model' && p.kind !== 'gate')) return null;
  const pr = prospect(t.evidence, t.costs, p, st, t.input, t.baselineCost, true, false, t.own);
  if (!pr) return null;
  const outcomes = t.evidence.outcomeEstimate(p, EARLY_OUTCOMES);
  // the catalog's prior, moved by what the tenant's other steps observed of the candidate (priors that learn)
  const tenant = t.tenant?.outcomes.get(key);
  const others = tenant ? pooledFrom(without(tenant.totals, tenant.steps.get(t.tenant!.fingerprint))) : null;
  const seen = outcomes ? { retention: outcomes.r, se: outcomes.se, n: outcomes.n } : undefined;
  // a gate whose two models the step has measured starts where they put it, as surely as they say (`gateRange`)
  const prior = tenantPrior(gateRange(p, t.own) ?? { mean: trialPrior(p, t), sd: TRIAL_PRIOR_SD }, others, seen);
  // a prior the step's evidence once contradicted stays overruled
  return judgePrior(t.ledger, key, { policy: p, stats: st, prior, costShare: pr.costShare, outcomes: seen, tried: t.ledger.total.get(key) ?? 0 });
}

/**
 * Where a candidate's retention starts before the step has measured it (a gate whose two models it
 * has measured starts at `gateRange`): a model at its catalog strength as a share of the baseline's;
 * a gate a little over its stronger model; without strengths, the sceptical start the payback rule uses.
 */
function trialPrior(p: Policy, t: TrialContext): number {
  const shares = t.input.strengthShares;
  const of = (m: string) => shares?.[m];
  if (p.kind === 'model' && of(p.model) !== undefined) return of(p.model)!;
  if (p.kind === 'gate' && of(p.a) !== undefined && of(p.b) !== undefined) return Math.max(of(p.a)!, of(p.b)!) + GATE_LIFT;
  return priorStart(p, t.input, t.own);
}

/**
 * The posterior of a policy the ledger holds trials of, on trial still or known by now (its evidence
 * then prices its past trials: a candidate its trials taught enough to decide on was priced as if
 * every answer had been wrong, and spent the budget for hundreds of calls); undefined when it is no
 * longer weighed.
 */
function posteriorOf(t: TrialContext, key: string): Posterior | undefined {
  const c = described(t, parsePolicy(key));
  return c ? trialPosterior(c) : undefined;
}

export interface Trial extends TrialChoice {
  /** The share of the risk budget the step's trials use, this one included. */
  used: number;
  reason: string;
}

/**
 * The trial to serve on this call, if any: among `open` candidates (unproven, still able to hold
 * or to serve in a mix), by posterior sampling, cheaper than what serves (`serving.share`), within
 * the step's quality-risk budget.
 */
export function trialFor(t: TrialContext, open: readonly Policy[], serving: { share: number; retention?: number }, allow: (p: Policy, st: PolicyStats) => boolean = () => true): Trial | null {
  const servingShare = serving.share;
  if (t.ledger.earned <= 0) return null; // no margin earned yet: nothing to weigh
  // only what could be cheaper than what serves is weighed: its models' prices alone are a lower bound of its cost
  const price = (p: Policy) => policyModels(p).reduce((a, m) => a + (t.input.priceShares?.[m] ?? 0), 0);
  const candidates = open.flatMap((p) => (price(p) < servingShare && allow(p, t.stats.get(policyKey(p))!) ? (asCandidate(t, p) ?? []) : []));
  if (candidates.length === 0) return null;
  // every posterior the budget reads on this call, each worked out once: the candidates' from what they are, the rest on first use
  const posteriors = new Map<string, Posterior | undefined>(candidates.map((c) => [policyKey(c.policy), trialPosterior(c)]));
  const priced = (k: string) => (posteriors.has(k) ? posteriors.get(k) : posteriors.set(k, posteriorOf(t, k)).get(k));
  const choice = chooseTrial({ candidates, servingShare, servingRetention: serving.retention, floor: t.input.floor, ledger: t.ledger, draw: t.input.draw, posteriorOf: priced });
  if (!choice) return null;
  const name = policyKey(choice.candidate.policy);
  spend(t.ledger, name);
  const used = budgetUsed(t.ledger, t.input.floor, priced);
  const pct = Math.round(Math.min(1, used) * 100);
  const from = choice.post.overrules ? `, its prior overruled by the step's evidence` : choice.candidate.prior.pooled ? `, from the tenant's other steps` : '';
  const c = choice.candidate;
  // outcomes the posterior read before the statistics count them (EARLY_OUTCOMES on)
  const early = c.outcomes && !c.stats.byOutcome ? `, ${c.outcomes.n} outcomes on its trials` : '';
  const reason = `served ${describePolicy(c.policy)} to learn: unproven (retention ${choice.post.mean.toFixed(2)} ± ${choice.post.sd.toFixed(2)}, ${c.stats.n} samples${early}${from}), ${drawnWhy(choice, t.input.floor)} at ${Math.round(c.costShare * 100)}% of the baseline's cost; risk budget ${pct}% used`;
  return { ...choice, used, reason };
}

/** Why the draw tried the candidate, for the call's reasons. */
function drawnWhy(choice: TrialChoice, floor: number): string {
  const d = choice.drawn;
  if (d.as === 'alone') return `drawn to hold ${floor}`;
  if (d.as === 'mix') return `drawn to hold ${floor} in a mix with what serves, on ${Math.round(d.share * 100)}% of calls`;
  return `one of its first ${MIN_TRIALS} trials`;
}

/** The share of the step's risk budget its trials use now, for the step view. */
export function ledgerUse(t: TrialContext): number {
  return budgetUsed(t.ledger, t.input.floor, (k) => posteriorOf(t, k));
}

/** Graded samples a candidate needs before, on a step without outcomes, it may be tried without grading its answer. */
export const UNGRADED_AFTER = 5;

/**
 * Trials on a step whose calls get no outcomes. A trial teaches there only if its answer is graded
 * after it is sent: the baseline answers the same request beside it (a side call, metered as the
 * call's exploration) and the judge grades the two where they differ (a cheap judge once its panel
 * adopts it), a paired comparison as sound as a probe's; agreement alone settles the rest. Only a
 * model is graded so (a gate's two answers are not kept with the call). The grading is paid from
 * the step's learning room, as probes are (`learningRoom`); where the room is spent, a candidate
 * with UNGRADED_AFTER graded samples, and fewer trials than twice its samples, may still be tried ungraded, within the risk budget priced on
 * that evidence (its trials cost less than the baseline's calls, and what they save pays for the
 * next grades), one without them is not tried: its posterior would be its prior alone.
 */
export function silentTrials(room: number, gradeCost: number, ledger: RiskLedger): { grade: boolean; allow: (p: Policy, st: PolicyStats) => boolean } {
  const grade = room >= gradeCost;
  // an ungraded trial adds nothing to the evidence it is priced on: a candidate's trials stay within twice its graded samples,
  // so each one served ungraded is matched by one that taught (else a posterior stuck on a lucky start serves on and on)
  const ungradedOk = (p: Policy, st: PolicyStats) => st.n >= UNGRADED_AFTER && (ledger.total.get(policyKey(p)) ?? 0) < 2 * st.n;
  return { grade, allow: (p, st) => p.kind === 'model' && (grade || ungradedOk(p, st)) };
}
