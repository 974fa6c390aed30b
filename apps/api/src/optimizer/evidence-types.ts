// What a step's evidence is made of: probes (the same request answered by candidate models
// and the baseline, the distinct answers graded), served samples (graded answers clients got),
// and the statistics read from them for a policy and for pruning.
export interface ProbeAnswer {
  /** The answer's text: only where the tenant's capture keeps texts (`full`), and until its retention passes. */
  text?: string;
  /** What agreement compares (answerKey); rows of earlier versions have only the text. */
  key?: string;
  /** Judged score, or null when it agrees with the baseline's answer (same score). */
  score: number | null;
  costMicros: number;
  /** What grading this answer cost the judge (what a verify policy pays for it). */
  judgeCostMicros?: number;
}

export interface Probe {
  at: number;
  /**
   * The candidate policy this probe was for. Such a probe grades only answers that disagree
   * with the baseline's (and the baseline's then), so its `baselineScore` is a fair sample of
   * the baseline's quality only when `baselineSampled` says it was graded at random. Probes
   * without it (older ones) graded the baseline's answer always.
   */
  policy?: string;
  baselineSampled?: boolean;
  /** Every answer that differed from the baseline's was graded: evidence for each of its models too. */
  complete?: boolean;
  /**
   * Made while the step served this policy instead of the baseline: `baselineText` and
   * `baselineScore` are then that policy's served answer and its grade (no baseline call was
   * paid for), and `baselineCostMicros` its cost.
   */
  reference?: string;
  /** The call it was made on: the client's outcome for that call, when it comes, is its baseline's true score. */
  call?: string;
  /** That outcome (set when it arrives, not stored with the probe). */
  outcome?: number;
  /**
   * Differing answers were left ungraded for the call's outcome to decide: until it comes the
   * probe is no evidence at all (counting only its agreeing answers would be a biased sample).
   */
  awaitsOutcome?: boolean;
  /** The judge's largest cost for grading one answer to this request (older probes; see ProbeAnswer). */
  judgeCostMicros?: number;
  baselineScore: number | null;
  /**
   * When pruning changed the request: the baseline's answer to the request as sent, and its
   * grade (null when it agrees with the answer to the pruned request).
   */
  unpruned?: { text?: string; key?: string; score: number | null };
  /** What exploring on this request cost (probe answers and judge grades), for the exploration budgets. */
  spentMicros?: number;
  /** A second, independent grade of the baseline's answer (sampled): the judge's self-consistency. */
  baselineRegrade?: number;
  /** The baseline's (or the served policy's) answer: kept as ProbeAnswer's text is. */
  baselineText?: string;
  baselineKey?: string;
  /** Whether that answer ran long or over several lines (free-form), kept without the text. */
  baselineLong?: boolean;
  baselineCostMicros: number;
  answers: Record<string, ProbeAnswer>;
}

export interface ServedSample {
  at: number;
  policy: string;
  score: number;
  /** Who graded it: the client (an outcome) or the judge. Each is compared with the baseline as that same grader sees it. */
  source?: 'outcome' | 'judge';
  /** The call the outcome is for (links it to a probe made on that call). */
  call?: string;
}

export interface PruneStats {
  n: number;
  retention: number;
  lcb: number;
  ucb: number;
}

export interface PolicyStats {
  n: number;
  retention: number;
  lcb: number;
  ucb: number;
  /** Mean cost per call, escalations included. */
  costMicros: number;
  /** An upper confidence bound of that cost, for deciding whether a policy is surely cheaper. */
  costUcbMicros: number;
  /** The two graders' separate estimates of retention, when they have one. */
  byJudge?: { retention: number; n: number };
  byOutcome?: { retention: number; n: number };
}
