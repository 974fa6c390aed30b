// The optimizer's memory and decisions, per step: which policy serves a `model:
// "auto"` call (the cheapest one proven to hold the step's quality bar, else the
// baseline), which candidates to probe while the step is still open, when it has
// settled, and when a settled choice drifts.
import type { Database } from '../db/database.ts';
import type { Meter } from '../meter/meter.ts';
import type { EvidenceRow } from '../meter/rows.ts';
import { newId } from '../security/secrets.ts';
import type { CallEvent } from '../wire/events.ts';
import { mean, sd, StepEvidence, type PolicyStats, type Probe, type ServedSample } from './evidence.ts';
import { candidatePolicies, describePolicy, parsePolicy, policyKey, policyModels, type Policy } from './policies.ts';
import { HOLD_Z, levelFloor, MIN_EVIDENCE, MIN_PAYBACK, MIX_LEVELS, paybackBar, planExploration } from './exploration.ts';
import { cheapestMix, holdBound, mixKey, servesUnder, type Mix, type Weighed } from './mix.ts';
import { JudgePanel, type JudgePair } from './judge-panel.ts';
import { pool, posterior, type Estimate } from './priors.ts';
import { MIN_OUTCOME_SHARE, probeCosts, prospect, Z_STATS, type StepTraffic } from './prospects.ts';
import type { Choice, DecideInput, LearningMode, LockedStep, StepKey } from './decide-input.ts';
import { earn, newLedger, type RiskLedger } from './trials.ts';
import { ledgerUse, triable, trialFor, type Trial } from './serve-trial.ts';

export type { Choice, DecideInput, LearningMode, LockedStep, StepKey } from './decide-input.ts';

/** A policy's statistics with its retention taken from the posterior (own evidence shrunk toward a prior). */
function shrink(st: PolicyStats, prior: ReturnType<typeof pool>): PolicyStats {
  if (!prior) return st;
  const own: Estimate = { retention: st.retention, se: st.n > 0 ? (st.ucb - st.lcb) / 2 : Infinity, n: st.n };
  const post = posterior(own, prior);
  return { ...st, retention: post.retention, lcb: post.retention - post.se, ucb: post.retention + post.se };
}

/** A judge pair as stored: which judges it compared. */
type StoredJudgePair = JudgePair & { judge: string; cheap: string };

/** Samples a policy needs before it may serve. */
export const MIN_SAMPLES = MIN_EVIDENCE;
/** Samples a candidate gets before a poor estimate may close it. */
const MIN_OPEN_SAMPLES = 30;
/** Pruned requests compared with their unpruned form before pruning may go on once a step settles. */
export const MIN_PRUNE_SAMPLES = 20;
/** While the baseline's quality is not known, the share of probes that grade its answer at random. */
const BASELINE_SAMPLE_RATE = 0.25;
/** Share of probes on which the judge grades the baseline's answer twice. */
const REGRADE_SHARE = 0.5;
/** Regrades per step after which the judge's error rate is known well enough. */
const MAX_REGRADES = 30;
/** Exploration may take this share of a step's baseline spend so far, plus a start-up allowance of this many baseline calls. */
export const DEFAULT_BUDGET_SHARE = 0.1;
export const DEFAULT_ALLOWANCE_CALLS = 2;
/** The payback at which a settled step explores again. */
const REOPEN_PAYBACK = 1.5 * MIN_PAYBACK;
/** Samples a policy needs before it may serve when other steps' evidence backs it. */
const MIN_SAMPLES_WITH_PRIOR = 20;
/** How long the tenant's pooled step estimates are reused (they change with each step's evidence). */
const PRIORS_TTL_MS = 2_000;
/** On a settled step with scarce outcomes, every this-many-th call gets a judge check (0.5 %). */
const DRIFT_CHECK_EVERY = 200;
/** Drift is tested once per this many new grades of the serving policy, over the last two blocks. */
const DRIFT_BLOCK = 20;
/** A run of failing grades is drift when the policy's own failure rate gives it less than this chance. */
const DRIFT_RUN_P = 1e-5;
const DRIFT_MIN_RUN = 4;
const DRIFT_Z = 3;
const DRIFT_MARGIN = 0.05;
/** Multi-model policies draw on this many of a step's strongest cheap models, plus this many of the cheapest. */
const POOL_STRONG = 4;
const POOL_CHEAP = 2;
/** A policy must cost at most this share of the baseline to be worth serving. */
const WORTHWHILE = 0.9;

interface StepState {
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
  /** The last decision's view of its candidates, for the step registry. */
  view: { policy: string; n: number; retention: number; lcb: number; cost_share: number; by_judge?: { retention: number; n: number }; by_outcome?: { retention: number; n: number } }[];
}

export interface Decision {
  policy: Policy;
  /** Models to probe on this call (at most one candidate policy's; empty when not exploring). */
  probe: string[];
  /** The candidate policy the probe is for. */
  probing?: string;
  /** Compare the probe with the served answer, not the baseline's (a model probed while another policy serves). */
  chained?: boolean;
  /** Have the judge grade probed answers that differ from the baseline's (else the call's outcome decides). */
  gradeDiffering?: boolean;
  /**
   * Have the tenant's unproven cheap judge grade the answer the client gets, for the call's
   * outcome to measure it: where outcomes come and exploring is in sight (its payback nears 1).
   */
  gradeForTruth?: boolean;
  /** Judge-check the served answer (a drift check on a settled step). */
  check: boolean;
  /** An unproven policy serves this call to learn (learning_mode serve): which, and the share of the step's risk budget its trials use. */
  trial?: { policy: string; budgetUsed: number };
  /** Have the judge grade the baseline's probed answer a second time (its self-consistency). */
  regrade: boolean;
  /** Have the judge grade the baseline's answer at random (how good the baseline is, while outcomes do not say). */
  sampleBaseline: boolean;
  /**
   * Whether this call's context may be pruned: while the step explores (to gather the
   * evidence) and, once it settles, only while that evidence says pruned answers hold the bar.
   */
  prune: boolean;
  /** The least share of the prompt pruning must remove to be applied (0 once pruning is proven on the step). */
  pruneMinShare: number;
  settled: boolean;
  reasons: string[];
}

/**
 * The policy to serve among those that hold: the cheapest, unless a tiebreak other than cost
 * picks among the ones within the band of it (the cheaper of equals).
 */
export function pickHolder<T extends { policy: Policy; stats: PolicyStats }>(holders: T[], baselineCost: number, choice: Choice | undefined): T | null {
  if (holders.length === 0) return null;
  const byCost = [...holders].sort((a, b) => a.stats.costMicros - b.stats.costMicros);
  const cheapest = byCost[0]!;
  if (!choice || choice.tiebreak === 'cost') return cheapest;
  const edge = cheapest.stats.costMicros + Math.max(0, choice.band) * baselineCost;
  const tied = byCost.filter((h) => h.stats.costMicros <= edge);
  const score = (h: T) => (choice.tiebreak === 'quality' ? -h.stats.lcb : (choice.latencyOf?.(h.policy) ?? Infinity));
  return tied.reduce((best, h) => (score(h) < score(best) ? h : best), cheapest);
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** Why a mix serves the call, and which of its sides this call got. */
function mixReason(m: Mix, served: Policy, input: DecideInput): string {
  const over = m.over ? describePolicy(m.over.policy) : `the baseline ${input.baseline}`;
  return `routed to ${describePolicy(served)} by a mix: ${describePolicy(m.under.policy)} on ${Math.round(m.share * 100)}% of calls (${m.under.stats.n} samples, under ${input.floor} alone), ${over} on the rest; the mix holds ${m.bound.toFixed(3)} ≥ ${input.floor} of the baseline's quality`;
}

/** How often a gate is taken to escalate to the baseline before its probes measure its cost. */
const GATE_ESCALATION = 0.3;

/**
 * A policy's statistics with its cost per call priced from the catalog where no probe measured it:
 * a policy proven by serving it (its outcomes) has evidence but no probed cost, and an unknown
 * cost would keep it from ever serving.
 */
function priced(st: PolicyStats, p: Policy, input: DecideInput, baselineCost: number): PolicyStats {
  if (Number.isFinite(st.costMicros) || st.n === 0 || !Number.isFinite(baselineCost)) return st;
  const share = (m: string) => input.priceShares?.[m];
  const shares = p.kind === 'model' ? [share(p.model)] : p.kind === 'gate' ? [share(p.a), share(p.b)] : [];
  if (shares.length === 0 || shares.some((x) => x === undefined)) return st;
  const micros = (shares.reduce((a, b) => a! + b!, 0)! + (p.kind === 'gate' ? GATE_ESCALATION : 0)) * baselineCost;
  return { ...st, costMicros: micros, costUcbMicros: micros };
}

/** The retention a call served without a trial is counted at in the risk budget: the baseline's 1, else the policy's bound. */
function retentionOf(chosen: Policy, input: DecideInput, bound: number | undefined): number {
  const isBase = chosen.kind === 'model' && chosen.model === input.baseline;
  return isBase ? 1 : (bound ?? input.floor);
}

/**
 * A trial call: its reasons say so, and where outcomes are scarce the judge grades the answer
 * after it is sent, when a grade and the trial together still cost less than the baseline's call.
 */
function markTrial(d: Decision, trial: Trial, costs: ReturnType<typeof probeCosts>): void {
  d.trial = { policy: policyKey(trial.candidate.policy), budgetUsed: trial.used };
  d.reasons[0] = trial.reason;
  d.prune = false; // one thing in question at a time: the candidate, on the request as sent
  d.regrade = false;
  d.sampleBaseline = false;
  if (costs.outcomes < MIN_OUTCOME_SHARE && costs.grade + trial.candidate.costShare < 1) {
    d.check = true;
    d.reasons.push('trial grade: few outcomes come on this step, so the judge grades this answer after it is sent');
  }
}

function stepId(k: StepKey): string {
  return `${k.workflowId}|${k.fingerprint}|${k.release}`;
}

/**
 * How long a tenant's summed daily exploration spend is reused (new probes are added to it as
 * they come): summing walks every probe of every step the tenant has, too much for each
 * explored call. Meanwhile probes that leave the 24 h window still count, which can only stop
 * exploring early, never late.
 */
const DAY_SPEND_TTL_MS = 60_000;

/** A step's state for an older release leaves memory once a newer release of it has taken over for this long. */
const SUPERSEDED_IDLE_MS = 24 * 3600_000;
/** How often superseded states are looked for. */
const SWEEP_EVERY_MS = 10 * 60_000;

/** Evidence rows read per query. At start, reads go on while they bring at least half a batch of new rows. */
const LOAD_BATCH = 20_000;

export class Optimizer {
  readonly #states = new Map<string, StepState>();
  readonly #db: Database;
  readonly #meter: Meter;
  #lastLoaded = new Date(0);
  #poll: NodeJS.Timeout | null = null;

  constructor(db: Database, meter: Meter) {
    this.#db = db;
    this.#meter = meter;
  }

  /**
   * Loads the evidence memory, all of it before the first decision (a step decided on part
   * of its evidence would explore again), then keeps it in step with other replicas' writes.
   */
  async start(): Promise<void> {
    let fresh = LOAD_BATCH;
    while (fresh >= LOAD_BATCH / 2) fresh = await this.#load();
    this.#poll = setInterval(() => {
      void this.#load().catch(() => undefined);
      if (Date.now() - this.#lastSweep >= SWEEP_EVERY_MS) this.sweepSuperseded();
    }, 2_000);
    this.#poll.unref();
  }

  stop(): void {
    if (this.#poll) clearInterval(this.#poll);
  }

  /**
   * Evidence rows this replica already holds (its own, and those loaded), by id, with when
   * they were made: a load skips them. Only rows a later load could still return are kept.
   */
  readonly #seen = new Map<string, number>();
  #lastSweep = Date.now();

  /**
   * Drops the states of releases a newer release of the same step has replaced for a day:
   * each deploy starts fresh states for every step, and the old ones would otherwise stay in
   * memory with their probes for the life of the process. Their evidence stays stored; a
   * restart reads it back (and a rollback to that release starts learning again).
   */
  sweepSuperseded(now = Date.now()): number {
    this.#lastSweep = now;
    const newest = new Map<string, StepState>();
    const group = (k: StepKey) => `${k.accountId}|${k.workflowId}|${k.fingerprint}`;
    for (const st of this.#states.values()) {
      const g = group(st.key);
      const cur = newest.get(g);
      if (!cur || st.lastUsed > cur.lastUsed) newest.set(g, st);
    }
    let dropped = 0;
    for (const [id, st] of this.#states) {
      if (newest.get(group(st.key)) === st || now - st.lastUsed < SUPERSEDED_IDLE_MS) continue;
      this.#states.delete(id);
      dropped++;
    }
    return dropped;
  }

  /** Reads the evidence newer than the cursor; returns how many rows were new here. */
  async #load(): Promise<number> {
    const since = this.#lastLoaded;
    const rows = (await this.#db
      .em()
      .getConnection()
      .execute('select * from evidence where created_at > ? order by created_at asc limit ?', [since.toISOString(), LOAD_BATCH])) as (Omit<EvidenceRow, 'created_at'> & { created_at: Date | string })[];
    let fresh = 0;
    for (const r of rows) {
      if (this.#seen.has(r.id)) continue;
      fresh++;
      // drivers differ: a Date from node-postgres, the text of the timestamp from PGlite's wire
      const at = new Date(r.created_at).getTime();
      this.#seen.set(r.id, at);
      if (at - 5_000 > this.#lastLoaded.getTime()) this.#lastLoaded = new Date(at - 5_000);
      if (r.kind === 'judge') {
        this.#addJudgePair(r.account_id, r.sample as unknown as StoredJudgePair);
        continue;
      }
      const s = this.#state({ accountId: r.account_id, workflowId: r.workflow_id, fingerprint: r.fingerprint, label: '', release: r.release }, at);
      if (r.kind === 'probe') this.#addProbe(s, r.sample as unknown as Probe);
      else s.evidence.addServed(r.sample as unknown as ServedSample, (r.sample as { baseline?: boolean }).baseline === true);
    }
    // a load asks only for rows newer than #lastLoaded: older ids can never come back
    const forgetBefore = this.#lastLoaded.getTime() - 60_000;
    for (const [id, at] of this.#seen) if (at < forgetBefore) this.#seen.delete(id);
    return fresh;
  }

  /** How many evidence row ids are held to skip on the next load (bounded by the load window, not by history). */
  get seenRows(): number {
    return this.#seen.size;
  }

  /** The step's state, made on first use; `at` is when it is used (a loaded row's own time). */
  #state(k: StepKey, at = Date.now()): StepState {
    const id = stepId(k);
    let s = this.#states.get(id);
    if (!s) {
      s = { key: k, evidence: new StepEvidence(), settled: false, resettling: false, traffic: { calls: 0, baselineMicros: 0, actualMicros: 0, exploredMicros: 0, outcomes: 0 }, lastPlan: { payback: 0, rate: 0 }, drifted: [], reopenedAt: 0, chosen: '', view: [], settledCalls: 0, lastUsed: at, mixCounts: { mix: '', under: 0, total: 0 }, ledger: newLedger(), riskUsed: 0 };
      this.#states.set(id, s);
    }
    if (k.label && !s.key.label) s.key = k;
    if (at > s.lastUsed) s.lastUsed = at;
    return s;
  }

  /** A routed call on the step was priced: its traffic, for the payback rule and the step's exploration budget. */
  noteCall(step: StepKey, baselineMicros: number, actualMicros = baselineMicros, exploredMicros = 0): void {
    const s = this.#state(step);
    s.traffic.calls++;
    s.traffic.baselineMicros += Math.max(0, baselineMicros);
    s.traffic.actualMicros += Math.max(0, actualMicros);
    s.traffic.exploredMicros += Math.max(0, exploredMicros);
  }

  /** What a call's learning spent once it ended (after the call was noted): the step's exploration. */
  noteExploration(step: StepKey, micros: number): void {
    const s = this.#state(step);
    s.traffic.actualMicros += Math.max(0, micros);
    s.traffic.exploredMicros += Math.max(0, micros);
  }

  decide(input: DecideInput): Decision {
    const s = this.#state(input.step);
    if (input.locked) return this.#followLock(s, input, input.locked);
    const base: Policy = { kind: 'model', model: input.baseline };
    const floor = input.floor;
    const judged = input.judges?.panel.errors();
    if (judged) s.evidence.setSharedJudgeError(input.judges!.panel.adopted ? judged.cheap : judged.main);
    const baseStats = s.evidence.stats(base, input.baseline);
    const perCall = s.traffic.calls > 0 ? s.traffic.baselineMicros / s.traffic.calls : NaN;
    const baselineCost = Number.isFinite(baseStats.costMicros) ? baseStats.costMicros : Number.isFinite(perCall) ? perCall : Infinity;
    const available = new Set(input.cheaper);
    const stats = new Map<string, PolicyStats>();
    const holders: Weighed[] = [];
    const under: Weighed[] = [];
    const open: Policy[] = [];
    const bound = (st: PolicyStats) => holdBound(st, HOLD_Z, Z_STATS);
    const tiebroken = input.choice !== undefined && input.choice.tiebreak !== 'cost';
    // a mix serves only where cost decides and the baseline does not have to serve
    const mixing = !input.serveBaseline && !tiebroken;
    const mixFloor = mixing ? levelFloor(floor, Math.min(...MIX_LEVELS)) : floor;
    const own = new Map<string, PolicyStats>();
    /** Candidates the tenant's other steps give a prior. */
    const backed = new Set<string>();
    const priors = this.#priors(s);
    for (const p of candidatePolicies(input.cheaper, input.allowGates, this.#ensemblePool(s, input))) {
      const key = policyKey(p);
      const mine = priced(s.evidence.stats(p, input.baseline), p, input, baselineCost);
      own.set(key, mine);
      // the step's own estimate shrunk toward what the tenant's other steps say of the candidate
      const prior = pool(priors.get(key)?.filter((x) => x.fingerprint !== s.key.fingerprint) ?? []);
      const st = shrink(mine, prior);
      stats.set(key, st);
      if (prior) backed.add(key);
      const enough = st.n >= (prior ? MIN_SAMPLES_WITH_PRIOR : MIN_SAMPLES);
      const holds = enough && bound(st) >= floor;
      // worth serving only if it saves a margin: its mean cost at most WORTHWHILE of the baseline's
      const worthwhile = st.costMicros < WORTHWHILE * baselineCost;
      if (holds && worthwhile) holders.push({ policy: p, stats: st });
      // under the bar alone, it may still serve part of the calls beside a policy above it
      if (enough && !holds && worthwhile && !(input.singleModel && p.kind !== 'model')) under.push({ policy: p, stats: st });
      // open while it might hold alone, or serve a share of the calls in a mix
      if (!holds && (st.n < MIN_OPEN_SAMPLES || st.ucb >= mixFloor)) open.push(p);
    }
    s.view = this.#view(own, baselineCost);
    const events: CallEvent[] = [];
    const best = pickHolder(holders, baselineCost, input.choice);
    // a settled step keeps its choice while it still holds and can serve; a cheaper proven policy takes over
    // (under a tiebreak other than cost, the tiebreak's pick takes over)
    let chosen = input.serveBaseline ? base : (best?.policy ?? base);
    let chosenStats = input.serveBaseline ? undefined : best?.stats;
    if (s.chosen && !s.chosen.startsWith('mix:') && s.settled && !input.serveBaseline && !(tiebroken && best && policyKey(best.policy) !== s.chosen)) {
      const current = parsePolicy(s.chosen);
      const usable = policyModels(current).every((m) => m === input.baseline || available.has(m)) && !(input.singleModel && current.kind !== 'model');
      const st = stats.get(s.chosen);
      const isBase = current.kind === 'model' && current.model === input.baseline;
      const stillHolds = isBase ? best === null : st !== undefined && st.n >= MIN_SAMPLES && st.lcb >= floor;
      if (usable && (stillHolds || !input.allowGates) && !(best && st && best.stats.costMicros < st.costMicros)) [chosen, chosenStats] = [current, st];
    }
    let chosenShare = chosenStats && Number.isFinite(chosenStats.costMicros) ? chosenStats.costMicros / baselineCost : 1;
    // the bar is a mean: a policy under it may serve part of the calls beside one above it, when that costs less
    const mix = !mixing ? null : cheapestMix(under, holders, floor, baselineCost, Math.min(chosenShare * baselineCost, WORTHWHILE * baselineCost), bound);
    if (mix) {
      const name = mixKey(mix, input.baseline);
      if (s.mixCounts.mix !== name) s.mixCounts = { mix: name, under: 0, total: 0 };
      const cheap = servesUnder(s.mixCounts, mix.share);
      s.mixCounts.total++;
      if (cheap) s.mixCounts.under++;
      const side = cheap ? mix.under : mix.over;
      [chosen, chosenStats] = side ? [side.policy, side.stats] : [base, undefined];
      chosenShare = mix.costMicros / baselineCost;
    }
    const costs = probeCosts(s, input);
    // learning by serving: an unproven candidate may serve this call, within the step's quality-risk budget
    const trial = input.learning === 'serve' && !input.serveBaseline && !tiebroken ? trialFor({ evidence: s.evidence, ledger: s.ledger, input, stats, own, costs, baselineCost }, open, chosenShare) : null;
    if (trial) [chosen, chosenStats] = [trial.candidate.policy, undefined];
    else earn(s.ledger, retentionOf(chosen, input, mix ? mix.bound : chosenStats?.lcb), input.floor);
    const chosenIsBase = chosen.kind === 'model' && chosen.model === input.baseline;
    // a single model probed while another policy serves is compared with the served answer, and its
    // retention chained to that policy's own (direct) evidence, whose uncertainty the chain inherits.
    // A policy proven only through such a chain, or whose direct evidence a drift forgot, anchors no
    // chain that could prove anything: those probes were paid for and never proved the model, and the
    // step probed it for good. Then the probe pays for the baseline's answer, as while the baseline serves.
    const anchors = !chosenIsBase && s.evidence.stats(chosen, input.baseline, false).n >= MIN_SAMPLES;
    // re-opened by drift, only what the drift touched is still in question
    // (and never the policy serving this call, which a probe would only compare with itself)
    // learning by serving on a step of free-form answers (code, prose), where a probe pays the judge for nearly every
    // answer: a candidate that can still be tried by serving it is learned that way, not probed (probes go on where
    // agreement makes them cheap, and for candidates known too well to be tried)
    const servedInstead = (p: Policy) => input.learning === 'serve' && s.evidence.freeForm() && triable(p, own.get(policyKey(p)));
    const stillOpen = open.filter((p) => (!s.drifted.length || policyModels(p).some((m) => s.drifted.includes(m))) && (chosenIsBase || policyKey(p) !== policyKey(chosen)) && !servedInstead(p));
    let plan = planExploration({
      traffic: { calls: s.traffic.calls, baselineMicros: s.traffic.baselineMicros, actualMicros: s.traffic.actualMicros, spentMicros: s.traffic.exploredMicros },
      floor,
      servingShare: chosenShare,
      gradeShare: costs.grade,
      budgetShare: input.budget?.share ?? DEFAULT_BUDGET_SHARE,
      allowanceCalls: input.budget?.allowanceCalls ?? DEFAULT_ALLOWANCE_CALLS,
      blocked: input.noProbe ?? this.#learningBlock(input.learning) ?? this.#overBudget(s, input),
      prospects: stillOpen.flatMap((p) => prospect(s.evidence, costs, p, stats.get(policyKey(p))!, input, baselineCost, chosenIsBase, backed.has(policyKey(p)), own, anchors) ?? []),
      draw: input.draw,
      levels: mixing ? MIX_LEVELS : [1],
      investing: s.lastPlan.funded,
    });
    // a settled step re-opens on clearly more payback than it settled at, not on every wobble around it
    if (s.settled && plan.probe && plan.payback < REOPEN_PAYBACK && !s.drifted.length) {
      plan = { ...plan, probe: null, rate: 0, funded: false, reason: `no probe: settled (payback ${plan.payback.toFixed(1)}× < ${REOPEN_PAYBACK} to re-open)` };
    }
    // settled: it has learned (probed) and no cheaper candidate is worth proving now; a step still too
    // young to pay for a probe is waiting, not settled
    // (a step still trying candidates by serving them is not settled either)
    const settled = (plan.payback < paybackBar(s.lastPlan.funded) || (s.settled && !plan.probe)) && (s.evidence.probes.length > 0 || s.ledger.trials.size > 0) && !trial;
    // a trial call serves the candidate instead of probing beside the answer
    if (trial) plan = { ...plan, probe: null, reason: `no probe: this call serves ${describePolicy(trial.candidate.policy)} on trial instead` };
    if (settled && !s.settled) {
      s.drifted = [];
      if (s.resettling) events.push({ kind: 'resettled', at: new Date(), payload: { step: input.step.label, fingerprint: input.step.fingerprint, policy: policyKey(chosen) } });
      s.resettling = false;
    }
    s.settled = settled;
    s.chosen = mix ? mixKey(mix, input.baseline) : policyKey(chosen);
    s.lastPlan = { payback: plan.payback, rate: plan.rate, funded: plan.funded };
    this.#pendingEvents.set(stepId(input.step), events);
    const probe = plan.probe ? plan.probe.models.filter((m) => m !== input.baseline) : [];
    const d = this.#decision(s, chosen, chosenStats, input, stillOpen, settled, probe, costs.grade);
    if (mix && !trial) d.reasons[0] = mixReason(mix, chosen, input);
    s.riskUsed = trial ? trial.used : s.ledger.trials.size > 0 ? ledgerUse({ evidence: s.evidence, ledger: s.ledger, input, stats, own, costs, baselineCost }) : 0;
    if (trial) markTrial(d, trial, costs);
    // the cheap judge is measured against outcomes only while an investment it would grade for is under way
    d.gradeForTruth = plan.funded && costs.judging && input.judges !== undefined && !input.judges.panel.decided && costs.outcomes >= MIN_OUTCOME_SHARE;
    if (input.learning === 'off') {
      d.check = false; // learning off: no judge is paid, not even for drift checks
      d.gradeForTruth = false;
    }
    if (plan.probe) {
      d.probing = plan.probe.key;
      d.gradeDiffering = plan.probe.key.startsWith('verify:') || costs.judging;
      d.chained = anchors && plan.probe.key.startsWith('model:');
    }
    d.reasons.push(plan.reason);
    if (d.check) d.reasons.push(`drift check: the judge grades the served answer (one call in ${DRIFT_CHECK_EVERY} while outcomes are scarce)`);
    return d;
  }

  /** A decision pinned by a lockfile: no candidates weighed, no probes; drift checks at the settled pace. */
  #followLock(s: StepState, input: DecideInput, lock: LockedStep): Decision {
    const policy = parsePolicy(lock.policy);
    const st = s.evidence.stats(policy, input.baseline);
    s.settled = true;
    s.chosen = lock.policy;
    s.lastPlan = { payback: 0, rate: 0 };
    this.#pendingEvents.delete(stepId(input.step));
    const d = this.#decision(s, policy, st.n > 0 ? st : undefined, input, [], true, [], 0);
    d.prune = lock.prune;
    d.pruneMinShare = 0;
    d.reasons = [
      `pinned by lockfile v${lock.version}: ${describePolicy(policy)}${lock.note ? ` (${lock.note})` : ''}`,
      d.check ? 'drift check: the judge grades the served answer' : 'no probe: the lockfile is in force, only drift checks explore',
    ];
    return d;
  }

  readonly #priorCache = new Map<string, { at: number; byPolicy: Map<string, (Estimate & { fingerprint: string })[]> }>();

  /**
   * The own estimates of every step of the tenant (of the same kind), by policy, for the
   * shared priors: read from each step's candidate view, rebuilt at most every two seconds.
   */
  #priors(s: StepState): Map<string, (Estimate & { fingerprint: string })[]> {
    const group = `${s.key.accountId}|${s.key.kind ?? ''}`;
    const now = Date.now();
    const held = this.#priorCache.get(group);
    if (held && now - held.at < PRIORS_TTL_MS) return held.byPolicy;
    const byPolicy = new Map<string, (Estimate & { fingerprint: string })[]>();
    for (const o of this.#states.values()) {
      if (o.key.accountId !== s.key.accountId || (o.key.kind ?? '') !== (s.key.kind ?? '')) continue;
      for (const v of o.view) {
        const list = byPolicy.get(v.policy) ?? [];
        list.push({ fingerprint: o.key.fingerprint, retention: v.retention, se: Math.max(v.retention - v.lcb, 1e-3), n: v.n });
        byPolicy.set(v.policy, list);
      }
    }
    this.#priorCache.set(group, { at: now, byPolicy });
    return byPolicy;
  }

  #view(stats: Map<string, PolicyStats>, baselineCost: number): StepState['view'] {
    const view = [...stats.entries()]
      .filter(([, st]) => st.n > 0 && Number.isFinite(st.costMicros))
      .map(([policy, st]) => ({
        policy,
        n: st.n,
        retention: round(st.retention),
        lcb: round(st.lcb),
        cost_share: round(st.costMicros / baselineCost),
        ...(st.byJudge ? { by_judge: { retention: round(st.byJudge.retention), n: st.byJudge.n } } : {}),
        ...(st.byOutcome ? { by_outcome: { retention: round(st.byOutcome.retention), n: st.byOutcome.n } } : {}),
      }));
    // the cheapest candidates and the best-holding ones
    const byCost = [...view].sort((a, b) => a.cost_share - b.cost_share).slice(0, 6);
    const byLcb = [...view].sort((a, b) => b.lcb - a.lcb).filter((v) => !byCost.includes(v)).slice(0, 6);
    const gates = view.filter((v) => v.policy.startsWith('gate:') && v.cost_share < 1).sort((a, b) => b.lcb - a.lcb).filter((v) => !byLcb.includes(v)).slice(0, 4);
    return [...byCost, ...byLcb, ...gates];
  }

  /**
   * The models multi-model policies are built from: the step's strongest cheap models by
   * evidence (unproven ones count as the cheapest), plus the two cheapest as helpers.
   */
  #ensemblePool(s: StepState, input: DecideInput): string[] {
    if (!input.allowGates) return [];
    const ranked = input.cheaper
      .map((m, i) => ({ m, i, st: s.evidence.stats({ kind: 'model', model: m }, input.baseline) }))
      .sort((a, b) => (b.st.n > 0 ? b.st.lcb : 0) - (a.st.n > 0 ? a.st.lcb : 0) || a.i - b.i)
      .map((x) => x.m);
    const pool = ranked.slice(0, POOL_STRONG);
    for (const m of input.cheaper.slice(0, POOL_CHEAP)) if (!pool.includes(m)) pool.push(m);
    return pool;
  }

  /** Why the tenant's learning mode forbids probing, or undefined when it probes (`serve`, `shadow`). */
  #learningBlock(mode: LearningMode | undefined): string | undefined {
    if (mode === 'off') return 'learning_mode off: no trials, no probes and no judge checks';
    return undefined;
  }

  /** Why exploring must stop on this call (a budget is spent), or '' when it may go on. */
  #overBudget(s: StepState, input: DecideInput): string {
    if (!input.budget) return '';
    const usd = (m: number) => (m / 1e6).toFixed(2);
    const cap = input.budget.stepMicros;
    // what this process saw it spend, or what its kept probes cost (they outlive a restart)
    if (cap !== undefined && Math.max(s.traffic.exploredMicros, s.evidence.spentSince(0)) >= cap) return `this step's exploration cap (${usd(cap)} USD) is spent`;
    const day = this.#daySpend(input.step.accountId);
    if (day >= input.budget.dailyMicros) return `the tenant's daily exploration budget (${usd(input.budget.dailyMicros)} USD) is spent`;
    return '';
  }

  /** A tenant's exploration spend over the last 24 h, summed over its steps at most once a minute. */
  #daySpend(accountId: string): number {
    const now = Date.now();
    const held = this.#daySpends.get(accountId);
    if (held && now - held.at < DAY_SPEND_TTL_MS) return held.micros;
    const since = now - 24 * 3600_000;
    let micros = 0;
    for (const other of this.#states.values()) if (other.key.accountId === accountId) micros += other.evidence.spentSince(since);
    this.#daySpends.set(accountId, { at: now, micros });
    return micros;
  }

  readonly #daySpends = new Map<string, { at: number; micros: number }>();

  readonly #panels = new Map<string, JudgePanel>();

  /** The tenant's panel for a configured judge and its cheaper candidate. */
  judgePanel(accountId: string, judge: string, cheap: string): JudgePanel {
    const key = `${accountId}|${judge}|${cheap}`;
    let p = this.#panels.get(key);
    if (!p) this.#panels.set(key, (p = new JudgePanel(judge, cheap)));
    return p;
  }

  #addJudgePair(accountId: string, pair: StoredJudgePair): void {
    this.judgePanel(accountId, pair.judge, pair.cheap).add({ kind: pair.kind, a: pair.a, b: pair.b });
  }

  /** The client's outcome for an answer the cheap judge graded: a measure of that judge against the truth. */
  recordTruth(step: StepKey, grade: { judge: string; cheap: string; score: number | null }, outcome: number): EvidenceRow {
    return this.recordJudgePair(step, this.judgePanel(step.accountId, grade.judge, grade.cheap), JudgePanel.pair('truth', outcome, grade.score));
  }

  /** Records a paired grade of the two judges; the row goes out with the call's evidence. */
  recordJudgePair(step: StepKey, panel: JudgePanel, pair: JudgePair): EvidenceRow {
    panel.add(pair);
    return this.#row({ ...step, fingerprint: '' }, 'judge', { ...pair, judge: panel.judge, cheap: panel.cheap });
  }

  #addProbe(s: StepState, probe: Probe): void {
    s.evidence.addProbe(probe);
    const held = this.#daySpends.get(s.key.accountId);
    if (held) held.micros += probe.spentMicros ?? 0;
  }

  #decision(s: StepState, chosen: Policy, st: PolicyStats | undefined, input: DecideInput, stillOpen: Policy[], settled: boolean, probe: string[], gradeCost: number): Decision {
    const reasons: string[] = [];
    const isBaseline = chosen.kind === 'model' && chosen.model === input.baseline;
    if (!isBaseline && st) {
      reasons.push(`routed to ${describePolicy(chosen)}: holds ${st.lcb.toFixed(3)} ≥ ${input.floor} of the baseline's quality on ${st.n} samples`);
    } else {
      reasons.push(`served by the baseline ${input.baseline}: no cheaper policy proven to hold ${input.floor}${settled ? '' : ' yet'}`);
    }
    const cheaperOpen = stillOpen.slice(0, 2).map(describePolicy);
    if (cheaperOpen.length) reasons.push(`cheaper but unproven: ${cheaperOpen.join('; ')}`);
    s.settledCalls = settled ? s.settledCalls + 1 : 0;
    const check = settled && !isBaseline && this.#recentOutcomeShare(s) < 0.05 && s.settledCalls % DRIFT_CHECK_EVERY === 0;
    const pruning = s.evidence.pruneStats();
    const proven = pruning.n >= MIN_PRUNE_SAMPLES && pruning.lcb >= input.floor;
    const rejected = pruning.n >= MIN_OPEN_SAMPLES && pruning.ucb < input.floor;
    // proving pruning takes a shadow per call (the baseline on the request as sent, and a grade unless
    // the answers agree): it pays only where pruning removes enough of the prompt, over the step's remaining traffic
    const shadows = Math.max(1, MIN_PRUNE_SAMPLES - pruning.n);
    const pruneMinShare = proven ? 0 : (shadows * (1 + gradeCost)) / Math.max(1, s.traffic.calls);
    const prune = proven || (probe.length > 0 && !rejected && pruneMinShare < 1);
    // a second draw for the judge's samples, independent enough of the one that chose to probe
    const draw2 = (input.draw * 7919) % 1;
    const sampleBaseline = probe.length > 0 && !s.evidence.baselineKnown() && draw2 < BASELINE_SAMPLE_RATE;
    // the judge's error comes from its panel when it has one; else from regrades of the baseline's answer
    const regrade = probe.length > 0 && !input.judges?.panel.errors() && draw2 < REGRADE_SHARE && s.evidence.regrades() < MAX_REGRADES;
    // trials graded by the judge are read against the baseline's judged quality: while it is not known, a
    // baseline answer is graded now and then beside them (where outcomes do not say it)
    const gradeBaseline = isBaseline && input.learning === 'serve' && s.ledger.trials.size > 0 && !s.evidence.baselineKnown() && this.#recentOutcomeShare(s) < 0.05 && draw2 < BASELINE_SAMPLE_RATE;
    return { policy: chosen, probe, check: check || gradeBaseline, settled, reasons, regrade, sampleBaseline, prune, pruneMinShare };
  }

  readonly #pendingEvents = new Map<string, CallEvent[]>();

  /** Events the last decision on this step caused (settle → resettled), taken once. */
  takeEvents(step: StepKey): CallEvent[] {
    const id = stepId(step);
    const e = this.#pendingEvents.get(id) ?? [];
    this.#pendingEvents.delete(id);
    return e;
  }

  /** The share of the step's routed calls whose outcome the client reported (judge-graded trials and checks are not outcomes). */
  #recentOutcomeShare(s: StepState): number {
    return s.traffic.calls > 0 ? Math.min(1, s.traffic.outcomes / s.traffic.calls) : 0;
  }

  recordProbe(step: StepKey, probe: Probe): EvidenceRow {
    this.#addProbe(this.#state(step), probe);
    return this.#row(step, 'probe', probe as unknown as Record<string, unknown>);
  }

  /**
   * A graded served answer (outcome, judge check, quality-gate failure). On a settled
   * step it also watches for drift: recent scores clearly under the bar re-open it.
   */
  recordServed(step: StepKey, sample: ServedSample, baseline: string, floor: number): { row: EvidenceRow; events: CallEvent[] } {
    const s = this.#state(step);
    if (sample.source === 'outcome') s.traffic.outcomes++;
    const isBaseline = sample.policy === `model:${baseline}`;
    s.evidence.addServed(sample, isBaseline);
    const row = this.#row(step, 'served', { ...sample, baseline: isBaseline });
    const events: CallEvent[] = [];
    if (s.settled && !isBaseline && sample.policy === s.chosen) {
      const all = s.evidence.recent(sample.policy, s.reopenedAt);
      const shares = all.map((r) => r.score / (s.evidence.baselineMeanBy(r.source) || 1));
      const fell = this.#fellUnderBar(shares, floor);
      if (fell !== null) {
        const policy = parsePolicy(sample.policy);
        s.evidence.forgetModels(policyModels(policy), [sample.policy]);
        s.drifted = policyModels(policy);
        s.settled = false;
        s.resettling = true;
        s.reopenedAt = Date.now();
        events.push({ kind: 'drift', at: new Date(), payload: { step: step.label, fingerprint: step.fingerprint, policy: sample.policy, recent_retention: Math.round(fell * 1000) / 1000, floor } });
      }
    }
    return { row, events };
  }

  /**
   * Whether a serving policy's recent grades (as shares of the baseline's quality, oldest
   * first) fell clearly under the bar; their recent retention if so. Two tests: a block test
   * of the mean, run once per block of new grades (a test of a sliding window on every grade
   * would raise false alarms on any policy near the bar), and a run of failures the policy's
   * own failure rate makes all but impossible (it catches a broken model within a few grades).
   */
  #fellUnderBar(shares: number[], floor: number): number | null {
    const n = shares.length;
    if (n >= DRIFT_BLOCK && n % DRIFT_BLOCK === 0) {
      const recent = shares.slice(-2 * DRIFT_BLOCK);
      const m = mean(recent);
      const se = sd(recent, m) / Math.sqrt(recent.length) || 0.05;
      if (m + DRIFT_Z * se < floor - DRIFT_MARGIN) return m;
    }
    let run = 0;
    while (run < n && shares[n - 1 - run]! < 0.5) run++;
    const before = shares.slice(0, n - run);
    if (run < DRIFT_MIN_RUN || before.length < 2 * DRIFT_BLOCK) return null;
    const failRate = Math.max(before.filter((x) => x < 0.5).length / before.length, 1 / before.length);
    return failRate ** run < DRIFT_RUN_P ? mean(shares.slice(-run)) : null;
  }

  #row(step: StepKey, kind: 'probe' | 'served' | 'judge', sample: Record<string, unknown>): EvidenceRow {
    const row: EvidenceRow = {
      id: newId('ev'),
      account_id: step.accountId,
      workflow_id: step.workflowId,
      fingerprint: step.fingerprint,
      release: step.release,
      kind,
      created_at: new Date().toISOString(),
      sample,
    };
    this.#seen.set(row.id, Date.parse(row.created_at));
    return row;
  }

  /** Writes evidence rows through the meter (write-ahead file, then the database). */
  persist(rows: EvidenceRow[], events: CallEvent[] = [], step?: StepKey): void {
    if (rows.length === 0 && events.length === 0) return;
    this.#meter.record({
      calls: [],
      activity: [],
      events: events.map((e) => ({
        id: newId('evt'),
        account_id: step!.accountId,
        workflow_id: step!.workflowId,
        kind: e.kind,
        created_at: e.at.toISOString(),
        call_id: null,
        payload: e.payload,
      })),
      evidence: rows,
    });
  }

  /** Per step of a workflow: whether it settled and on what. */
  stepStates(workflowId: string) {
    return [...this.#states.values()]
      .filter((s) => s.key.workflowId === workflowId)
      .map((s) => ({
        fingerprint: s.key.fingerprint,
        label: s.key.label,
        settled: s.settled,
        chosen: s.chosen,
        probes: s.evidence.probes.length,
        served: s.evidence.servedCount,
        judge_error: round(s.evidence.judgeErrorRate()),
        exploration: {
          calls: s.traffic.calls,
          baseline_usd: s.traffic.baselineMicros / 1e6,
          spent_usd: s.traffic.exploredMicros / 1e6,
          share_of_baseline: s.traffic.baselineMicros > 0 ? round(s.traffic.exploredMicros / s.traffic.baselineMicros) : 0,
          payback: round(s.lastPlan.payback),
          rate: round(s.lastPlan.rate),
        },
        pruning: (({ n, retention, lcb }) => ({ n, retention: round(retention), lcb: round(lcb) }))(s.evidence.pruneStats()),
        learning: { risk_budget: round(s.ledger.earned), risk_used: round(Math.min(1, s.riskUsed)), trials: Object.fromEntries(s.ledger.total) },
        candidates: s.view,
      }));
  }
}
