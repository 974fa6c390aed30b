// A cheaper judge that takes over from the configured one once it is measured to grade
// as well. Two kinds of paired grades, both nearly free: the cheap judge beside the
// configured one on answers the configured one grades anyway (cross), and the cheap
// judge twice on the same answer (self). With independent errors, self-agreement gives
// the cheap judge's error rate e₂ (s = 1 − 2e₂(1 − e₂)), and cross-agreement then gives
// the configured judge's e₁ (a = 1 − e₁ − e₂ + 2e₁e₂): no costly regrades of the
// configured judge are needed. The cheap judge grades once it agrees with the configured
// one about as often as with itself (its disagreements are its own noise, not another
// standard) and errs little, or no more than the configured one plus a margin; a small
// share of its grades keeps being audited, and the verdict follows the recent pairs.

export interface JudgePair {
  /** cross: configured and cheap judge on one answer; self: the cheap judge twice; truth: the client's outcome and the cheap judge. */
  kind: 'cross' | 'self' | 'truth';
  /** Grades as pass (1) / fail (0); -1 when a judge gave no readable grade. */
  a: number;
  b: number;
}

/** Outcome pairs before the cheap judge may take over on them, and the most it may then err (its grades are corrected for it). */
const MIN_TRUTH = 30;
const MIN_TRUTH_FAILS = 15;
const MAX_TRUTH_ERROR = 0.25;
/** Pairs of each kind before the cheap judge may take over. */
const MIN_CROSS = 40;
const MIN_SELF = 40;
/** Pairs of each kind kept (the most recent): the verdict follows the judges as they are now. */
const WINDOW = 200;
/** How much less the cheap judge may agree with the configured one than with itself. */
const MARGIN = 0.08;
/** How much a cheap judge may err in any case, and beyond that no more than the configured one plus the margin. */
const MAX_CHEAP_ERROR = 0.15;
/** Once adopted, the share of its grades the configured judge grades too. */
export const AUDIT_SHARE = 0.02;

const pass = (g: number | null): number => (g === null ? -1 : g >= 0.5 ? 1 : 0);

/**
 * The error model above assumes errors independent of the truth; a judge that passes (or
 * fails) nearly everything, or at random, fits it by accident. So the cheap judge must
 * also pass about as often as the configured one, and fail clearly more often where the
 * configured one fails than where it passes.
 */
function discriminates(cross: JudgePair[]): boolean {
  const graded = cross.filter((p) => p.a >= 0 && p.b >= 0);
  const mainFails = graded.filter((p) => p.a === 0);
  const mainPasses = graded.filter((p) => p.a === 1);
  if (mainFails.length < 5 || mainPasses.length < 5) return false;
  const passRate = (xs: JudgePair[], side: 'a' | 'b') => xs.filter((p) => p[side] === 1).length / xs.length;
  if (Math.abs(passRate(graded, 'a') - passRate(graded, 'b')) > MAX_PASS_GAP) return false;
  const failsWhenFailed = 1 - passRate(mainFails, 'b');
  const failsWhenPassed = 1 - passRate(mainPasses, 'b');
  return failsWhenFailed - failsWhenPassed >= MIN_LIFT;
}

/** How far the two judges' pass rates may differ, and how much more often the cheap one must fail where the configured one fails. */
const MAX_PASS_GAP = 0.1;
const MIN_LIFT = 0.15;

export class JudgePanel {
  readonly judge: string;
  readonly cheap: string;
  #cross: JudgePair[] = [];
  #truth: JudgePair[] = [];
  #self: JudgePair[] = [];
  #errors: { main: number; cheap: number; adopted: boolean } | undefined;

  constructor(judge: string, cheap: string) {
    this.judge = judge;
    this.cheap = cheap;
  }

  static pair(kind: JudgePair['kind'], a: number | null, b: number | null): JudgePair {
    return { kind, a: pass(a), b: pass(b) };
  }

  add(p: JudgePair): void {
    const list = p.kind === 'cross' ? this.#cross : p.kind === 'self' ? this.#self : this.#truth;
    list.push(p);
    if (list.length > WINDOW * 1.5) list.splice(0, list.length - WINDOW);
    this.#errors = undefined;
  }

  /** Whether a grade by the configured judge should also be asked of the cheap one. */
  wantsCross(draw: number): boolean {
    // once adopted (by outcomes too), the configured judge only audits a small share: never every grade
    return this.adopted ? draw < AUDIT_SHARE : this.#cross.length < MIN_CROSS;
  }

  /** Whether the cheap judge should grade an answer whose outcome the client may report. */
  wantsTruth(): boolean {
    return this.#truth.length < WINDOW;
  }

  /** Whether a cheap grade should be asked twice. */
  wantsSelf(): boolean {
    return this.#self.length < WINDOW;
  }

  /** Cross pairs still needed before the panel can decide (cross pairs are what costs: a configured judge's grade each). */
  crossNeeded(): number {
    return Math.max(0, MIN_CROSS - this.#cross.length);
  }

  /** Whether the panel has pairs enough to decide either way. */
  get decided(): boolean {
    return this.errors() !== null;
  }

  get adopted(): boolean {
    return this.#measure().adopted;
  }

  /** The two judges' error rates, once there are pairs enough to tell; null before. */
  errors(): { main: number; cheap: number } | null {
    const m = this.#measure();
    return Number.isNaN(m.main) ? null : { main: m.main, cheap: m.cheap };
  }

  #measure(): { main: number; cheap: number; adopted: boolean } {
    if (this.#errors) return this.#errors;
    // measured against the clients' outcomes, the cheap judge's error is simply how often it disagrees with them
    // (balanced over right and wrong answers: a judge that passes everything must not look good where most answers pass)
    const truth = this.#truth.slice(-WINDOW);
    const right = truth.filter((p) => p.a === 1);
    const wrong = truth.filter((p) => p.a === 0);
    if (right.length >= MIN_TRUTH && wrong.length >= MIN_TRUTH_FAILS) {
      const missRight = right.filter((p) => p.b !== 1).length / right.length;
      const missWrong = wrong.filter((p) => p.b !== 0).length / wrong.length;
      const error = (missRight + missWrong) / 2;
      // its grades are corrected by the error at its cautious (upper) end: an error taken too low
      // would leave a noisy judge's flattened differences flat, and flatter retention
      const rate = (q: number, n: number) => Math.max(q, 1 / (n + 2));
      const se = Math.sqrt((rate(missRight, right.length) * (1 - rate(missRight, right.length))) / right.length + (rate(missWrong, wrong.length) * (1 - rate(missWrong, wrong.length))) / wrong.length) / 2;
      if (error <= MAX_TRUTH_ERROR) return (this.#errors = { main: error + se, cheap: error + se, adopted: true });
    }
    const cross = this.#cross.slice(-WINDOW);
    const self = this.#self.slice(-WINDOW);
    if (cross.length < MIN_CROSS || self.length < MIN_SELF) return (this.#errors = { main: NaN, cheap: NaN, adopted: false });
    const agreeing = (xs: JudgePair[]) => xs.filter((p) => p.a === p.b && p.a >= 0).length / xs.length;
    const s = agreeing(self);
    const a = agreeing(cross);
    const errorOf = (selfAgreement: number) => (1 - Math.sqrt(Math.max(0, 2 * selfAgreement - 1))) / 2;
    const cheap = errorOf(s);
    const main = Math.min(0.5, Math.max(0, (1 - cheap - a) / Math.max(1e-6, 1 - 2 * cheap)));
    // its disagreements with the configured judge are no more than its own noise explains: no other standard
    const adopted = cheap <= Math.max(MAX_CHEAP_ERROR, main + MARGIN) && a >= s - MARGIN && discriminates(cross);
    return (this.#errors = { main, cheap, adopted });
  }
}
