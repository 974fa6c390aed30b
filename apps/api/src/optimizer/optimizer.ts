// The optimizer's memory and decisions, per step: which policy serves a `model:
// "auto"` call (the cheapest one proven to hold the step's quality bar, else the
// baseline), which candidates to probe while the step is still open, when it has
// settled, and when a settled choice drifts.
import type { Database } from '../db/database.ts';
import type { Meter } from '../meter/meter.ts';
import type { EvidenceRow } from '../meter/rows.ts';
import type { CallEvent } from '../wire/events.ts';
import { ensemblePool, priced, servingGradeShare, shrink, TenantPriors } from './candidate-stats.ts';
import type { DecideInput, LockedStep, StepKey } from './decide-input.ts';
import { confirmAnswer, confirms, decisionFor, gradeTrialAnswer, markTrial, MIN_OPEN_SAMPLES, mixReason, pickHolder, retentionOf, type Decision } from './decision.ts';
import { DRIFT_CHECK_EVERY, watchDrift } from './drift.ts';
import { routingDraws, type Draw } from './draws.ts';
import type { PolicyStats, Probe, ServedSample } from './evidence.ts';
import { EvidenceRows, type LoadedRow } from './evidence-rows.ts';
import { ExplorationSpend, learningBlock } from './exploration-budget.ts';
import { DEFAULT_ALLOWANCE_CALLS, DEFAULT_BUDGET_SHARE, HOLD_Z, learningRoom, levelFloor, MIN_EVIDENCE, MIN_PAYBACK, MIX_LEVELS, paybackBar, planExploration } from './exploration.ts';
import { JudgePanel, type JudgePair } from './judge-panel.ts';
import { cheapestMix, holdBound, mixKey, servesUnder, type Weighed } from './mix.ts';
import { candidatePolicies, describePolicy, parsePolicy, policyKey, policyModels, type Policy } from './policies.ts';
import { pool } from './priors.ts';
import { gateEscalation, outcomesCome, probeCosts, prospect, Z_STATS } from './prospects.ts';
import { ledgerUse, silentTrials, triable, trialFor } from './serve-trial.ts';
import { dropSuperseded, newStepState, stepId, stepKind, type StepState } from './step-state.ts';
import { noteKind } from './step-kind.ts';
import { candidateView, stepViews } from './step-view.ts';
import { earn } from './trials.ts';

/** A step's traffic as exploration reads it. */
const exploreTraffic = (s: StepState) => ({ calls: s.traffic.calls, baselineMicros: s.traffic.baselineMicros, actualMicros: s.traffic.actualMicros, spentMicros: s.traffic.exploredMicros });

/** Routed calls after which a step's share of calls with outcomes says whether its trials can teach anything. */
const OUTCOMES_KNOWN_AFTER = 20;

export type { Choice, DecideInput, LearningMode, LockedStep, StepKey } from './decide-input.ts';
export { MIN_PRUNE_SAMPLES, pickHolder, type Decision } from './decision.ts';

/** A judge pair as stored: which judges it compared. */
type StoredJudgePair = JudgePair & { judge: string; cheap: string };

/** Samples a policy needs before it may serve. */
export const MIN_SAMPLES = MIN_EVIDENCE;
/** The payback at which a settled step explores again. */
const REOPEN_PAYBACK = 1.5 * MIN_PAYBACK;
/** Samples a policy needs before it may serve when other steps' evidence backs it. */
const MIN_SAMPLES_WITH_PRIOR = 20;
/** A policy must cost at most this share of the baseline to be worth serving. */
const WORTHWHILE = 0.9;
/** How often superseded states are looked for. */
const SWEEP_EVERY_MS = 10 * 60_000;

export class Optimizer {
  readonly #states = new Map<string, StepState>();
  readonly #rows: EvidenceRows;
  readonly #spend = new ExplorationSpend();
  readonly #priors = new TenantPriors();
  #poll: NodeJS.Timeout | null = null;
  #lastSweep = Date.now();
  /** The routing's random draws (draws.ts): seeded by ROUTING_SEED for a reproducible benchmark. */
  readonly draw: Draw;

  constructor(db: Database, meter: Meter, opts: { seed?: number | undefined } = {}) {
    this.#rows = new EvidenceRows(db, meter, (r, at) => this.#take(r, at));
    this.draw = routingDraws(opts.seed);
  }

  /**
   * Loads the evidence memory, all of it before the first decision (a step decided on part
   * of its evidence would explore again), then keeps it in step with other replicas' writes.
   */
  async start(): Promise<void> {
    await this.#rows.loadAll();
    this.#poll = setInterval(() => {
      void this.#rows.load().catch(() => undefined);
      if (Date.now() - this.#lastSweep >= SWEEP_EVERY_MS) this.sweepSuperseded();
    }, 2_000);
    this.#poll.unref();
  }

  stop(): void {
    if (this.#poll) clearInterval(this.#poll);
  }

  /** Drops the states of releases a newer release of the same step has replaced for a day (dropSuperseded). */
  sweepSuperseded(now = Date.now()): number {
    this.#lastSweep = now;
    return dropSuperseded(this.#states, now);
  }

  /** A loaded evidence row (another replica's, or this one's from before a restart) joins the memory. */
  #take(r: LoadedRow, at: number): void {
    if (r.kind === 'judge') {
      this.#addJudgePair(r.account_id, r.sample as unknown as StoredJudgePair);
      return;
    }
    const s = this.#state({ accountId: r.account_id, workflowId: r.workflow_id, fingerprint: r.fingerprint, label: '', release: r.release }, at);
    if (r.kind === 'probe') this.#addProbe(s, r.sample as unknown as Probe);
    else s.evidence.addServed(r.sample as unknown as ServedSample, (r.sample as { baseline?: boolean }).baseline === true);
  }

  /** How many evidence row ids are held to skip on the next load (bounded by the load window, not by history). */
  get seenRows(): number {
    return this.#rows.seen;
  }

  /** The step's state, made on first use; `at` is when it is used (a loaded row's own time). */
  #state(k: StepKey, at = Date.now()): StepState {
    const id = stepId(k);
    let s = this.#states.get(id);
    if (!s) {
      s = newStepState(k, at);
      this.#states.set(id, s);
    }
    if (k.label && !s.key.label) s.key = k;
    if (at > s.lastUsed) s.lastUsed = at;
    return s;
  }


  /** The step's kind of work for this call (its declared one, else read from what its first calls asked for), noting what this one asked for. */
  kindOf(step: StepKey, ask: () => string | undefined): string | undefined {
    const s = this.#state(step);
    if (step.kind) return step.kind;
    noteKind(s.kinds, ask);
    return stepKind(s);
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
    const priors = this.#priors.of(s, this.#states);
    const gradeNow = servingGradeShare(s.evidence, input);
    /** A candidate's own statistics on the step, priced for serving (read again by the step view, as the evidence then stands). */
    const ownStats = (p: Policy) => priced(s.evidence.stats(p, input.baseline), p, input, baselineCost, gradeNow, () => gateEscalation(s.evidence, p, input.baseline));
    const weighed = candidatePolicies(input.cheaper, input.allowGates, ensemblePool(s.evidence, input));
    for (const p of weighed) {
      const key = policyKey(p);
      const mine = ownStats(p);
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
    s.view = candidateView(own, baselineCost);
    // the step view reads the same candidates from the evidence as it is when asked (grades that landed after this call count)
    s.currentView = () => candidateView(new Map(weighed.map((p) => [policyKey(p), ownStats(p)])), baselineCost);
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
    const blocked = input.noProbe ?? learningBlock(input.learning) ?? this.#spend.overBudget(s, input, this.#states);
    // learning by serving: an unproven candidate may serve this call, within the step's quality-risk budget
    // a trial's evidence is its outcome; on a step whose calls get none, its answer is graded after it is sent (silentTrials)
    // what learning may spend on the step: read once, for the graded trials and for the probes
    const spending = { traffic: exploreTraffic(s), budgetShare: input.budget?.share ?? DEFAULT_BUDGET_SHARE, allowanceCalls: input.budget?.allowanceCalls ?? DEFAULT_ALLOWANCE_CALLS, blocked };
    const silent = s.traffic.calls >= OUTCOMES_KNOWN_AFTER && !outcomesCome(costs) ? silentTrials(learningRoom(spending), (1 + 2 * costs.grade) * perCall, s.ledger) : null;
    const tenant = input.learning === 'serve' ? { outcomes: this.#priors.outcomes(s, this.#states), fingerprint: s.key.fingerprint } : undefined;
    const trial = input.learning === 'serve' && !input.serveBaseline && !tiebroken ? trialFor({ evidence: s.evidence, ledger: s.ledger, input, stats, own, costs, baselineCost, tenant }, open, { share: chosenShare, retention: silent ? undefined : retentionOf(chosen, input, chosenStats?.lcb, mix?.bound) }, silent?.allow) : null;
    // the step's choice is what serves apart from trials: a trial answers this call, it is not what the step chose
    const choice = chosen;
    if (trial) [chosen, chosenStats] = [trial.candidate.policy, undefined];
    const chosenIsBase = chosen.kind === 'model' && chosen.model === input.baseline;
    if (!trial) earn(s.ledger, retentionOf(chosen, input, chosenStats?.lcb, mix?.bound), input.floor, mix !== null || !chosenIsBase);
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
    const servedInstead = (p: Policy) => input.learning === 'serve' && outcomesCome(costs) && s.evidence.freeForm() && triable(p, own.get(policyKey(p)), true);
    const stillOpen = open.filter((p) => (!s.drifted.length || policyModels(p).some((m) => s.drifted.includes(m))) && (chosenIsBase || policyKey(p) !== policyKey(chosen)) && !servedInstead(p));
    let plan = planExploration({
      ...spending,
      floor,
      servingShare: chosenShare,
      gradeShare: costs.grade,
      prospects: stillOpen.flatMap((p) => prospect(s.evidence, costs, p, stats.get(policyKey(p))!, input, baselineCost, chosenIsBase, backed.has(policyKey(p)), own, anchors) ?? []),
      draw: input.draw,
      levels: mixing ? MIX_LEVELS : [1],
      investing: s.lastPlan.funded,
      ...(input.discover ? { discover: true } : {}),
    });
    // a settled step re-opens on clearly more payback than it settled at, not on every wobble around it
    if (s.settled && plan.probe && plan.payback < REOPEN_PAYBACK && !s.drifted.length) {
      plan = { ...plan, probe: null, rate: 0, funded: false, reason: `no probe: settled (payback ${plan.payback.toFixed(1)}× < ${REOPEN_PAYBACK} to re-open)` };
    }
    // settled: it has learned (probed) and no cheaper candidate is worth proving now; a step still too
    // young to pay for a probe is waiting, not settled
    // (a step still trying candidates by serving them is not settled either)
    // (discovering, it is settled once nothing cheaper is left open)
    const searched = input.discover ? !plan.probe : plan.payback < paybackBar(s.lastPlan.funded) || (s.settled && !plan.probe);
    const settled = searched && (s.evidence.probes.length > 0 || s.ledger.trials.size > 0) && !trial;
    // a trial call serves the candidate instead of probing beside the answer
    if (trial) plan = { ...plan, probe: null, reason: `no probe: this call serves ${describePolicy(trial.candidate.policy)} on trial instead` };
    if (settled && !s.settled) {
      s.drifted = [];
      if (s.resettling) events.push({ kind: 'resettled', at: new Date(), payload: { step: input.step.label, fingerprint: input.step.fingerprint, policy: policyKey(chosen) } });
      s.resettling = false;
    }
    s.settled = settled;
    s.chosen = mix ? mixKey(mix, input.baseline) : policyKey(choice);
    s.lastPlan = { payback: plan.payback, rate: plan.rate, funded: plan.funded };
    this.#pendingEvents.set(stepId(input.step), events);
    const probe = plan.probe ? plan.probe.models.filter((m) => m !== input.baseline) : [];
    const d = decisionFor(s, chosen, chosenStats, input, stillOpen, settled, probe, costs.grade);
    if (mix && !trial) d.reasons[0] = mixReason(mix, chosen, input);
    s.riskUsed = trial ? trial.used : s.ledger.trials.size > 0 ? ledgerUse({ evidence: s.evidence, ledger: s.ledger, input, stats, own, costs, baselineCost, tenant }) : 0;
    if (trial) markTrial(d, trial);
    if (trial && silent?.grade) gradeTrialAnswer(d, s, input);
    else if (silent?.grade) {
      // a model proven where no outcomes come: a share of its answers is graded until its proof is confirmed or withdrawn
      const key = policyKey(chosen);
      const proof = own.get(key);
      if (confirms(chosen, proof, input)) confirmAnswer(d, s, input, key, proof!.n);
    }
    // the cheap judge is measured against outcomes only while an investment it would grade for is under way
    d.gradeForTruth = plan.funded && costs.judging && input.judges !== undefined && !input.judges.panel.decided && outcomesCome(costs);
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
    const d = decisionFor(s, policy, st.n > 0 ? st : undefined, input, [], true, [], 0);
    d.prune = lock.prune;
    d.pruneMinShare = 0;
    d.reasons = [
      `pinned by lockfile v${lock.version}: ${describePolicy(policy)}${lock.note ? ` (${lock.note})` : ''}`,
      d.check ? 'drift check: the judge grades the served answer' : 'no probe: the lockfile is in force, only drift checks explore',
    ];
    return d;
  }

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
    return this.#rows.row({ ...step, fingerprint: '' }, 'judge', { ...pair, judge: panel.judge, cheap: panel.cheap });
  }

  #addProbe(s: StepState, probe: Probe): void {
    s.evidence.addProbe(probe);
    this.#spend.noteProbe(s.key.accountId, probe.spentMicros ?? 0);
  }

  readonly #pendingEvents = new Map<string, CallEvent[]>();

  /** Events the last decision on this step caused (settle → resettled), taken once. */
  takeEvents(step: StepKey): CallEvent[] {
    const id = stepId(step);
    const e = this.#pendingEvents.get(id) ?? [];
    this.#pendingEvents.delete(id);
    return e;
  }

  recordProbe(step: StepKey, probe: Probe): EvidenceRow {
    this.#addProbe(this.#state(step), probe);
    return this.#rows.row(step, 'probe', probe as unknown as Record<string, unknown>);
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
    const row = this.#rows.row(step, 'served', { ...sample, baseline: isBaseline });
    const drift = watchDrift(s, step, sample, isBaseline, floor);
    return { row, events: drift ? [drift] : [] };
  }

  /** Writes evidence rows through the meter (write-ahead file, then the database). */
  persist(rows: EvidenceRow[], events: CallEvent[] = [], step?: StepKey): void {
    this.#rows.persist(rows, events, step);
  }

  /** Per step of a workflow: whether it settled and on what. */
  stepStates(workflowId: string) {
    return stepViews(this.#states.values(), workflowId);
  }
}
