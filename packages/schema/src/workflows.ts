// Workflow life on the wire (spec 2.7, 4.2, 9; design §9): the stage, the report and its
// stored versions, and the lockfile. Shared by the server, the SDK and the web app.
import { z } from 'zod';

/** `tuning` and `production` are stored; `ready` is derived (every expected step settled). */
export type WorkflowStage = 'tuning' | 'ready' | 'production';

/** A workflow id in a path or a procedure's input. */
export const workflowRef = z.object({ id: z.string().min(1).max(64) }).strict();

/** `?version=N` on the report route: a stored version; omitted, the live report. */
export const reportQuery = z.object({ version: z.number().int().min(1).optional() }).strict();
export type ReportQuery = z.infer<typeof reportQuery>;

/** A stage a tenant may ask for; `ready` follows from the steps, and leaving production is cancelling the subscription. */
export const stageRequest = z.object({ stage: z.literal('production') }).strict();
export type StageRequest = z.infer<typeof stageRequest>;

export interface StepEvidenceView {
  /** Graded samples behind the policy. */
  n: number;
  /** Its estimated share of the baseline's quality, and the lower bound that had to clear the floor. */
  retention: number;
  lcb: number;
  /** Its cost as a share of the baseline's. */
  cost_share: number;
}

export interface ReportStep {
  fingerprint: string;
  label: string;
  expected: boolean;
  settled: boolean;
  calls: number;
  /** The policy serving the step (`model:…`, `gate:…`, …); null while the baseline serves by default. */
  policy: string | null;
  /** The model whose answer the policy serves, and the reasoning effort it runs at (null: the request's). */
  model: string | null;
  reasoning_effort: string | null;
  cache: { exact: boolean; semantic: boolean };
  pruning: { enabled: boolean; n: number; retention: number; lcb: number };
  /** The optimizer's evidence for the policy; null when none (the baseline is the yardstick, not a candidate). */
  evidence: StepEvidenceView | null;
  exploration: { spent_usd: number; share_of_baseline: number };
}

/** What a stored version keeps; the live fields (stage, newest version) are added on read. */
export interface ReportBody {
  workflow_id: string;
  quality_floor: number;
  /** Every expected step had settled when the report was made. */
  settled: boolean;
  steps: ReportStep[];
}

export interface Report extends ReportBody {
  stage: WorkflowStage;
  /** null for the live report, else the stored version read. */
  version: number | null;
  finalized_at: string | null;
  newest_version: number | null;
  versions: number[];
}

export interface LockfileStep {
  fingerprint: string;
  label: string;
  /** null: the step had no proven policy when finalized, so the baseline serves it. */
  policy: string | null;
  model: string | null;
  reasoning_effort: string | null;
  cache: ReportStep['cache'];
  pruning: ReportStep['pruning'];
  evidence: ReportStep['evidence'];
}

export interface Lockfile {
  lockfile_version: 1;
  workflow_id: string;
  report_version: number;
  finalized_at: string;
  quality_floor: number;
  steps: LockfileStep[];
}
