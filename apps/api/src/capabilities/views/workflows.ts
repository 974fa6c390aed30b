// What the workflow capabilities answer: the workflow list, a workflow's stage, its report
// (live or a stored version), its lockfile and its production events.
import { z } from 'zod';
import { named, time } from '../shapes.ts';

const int = () => z.number().int();

export const WorkflowStage = named(
  'WorkflowStage',
  z.enum(['tuning', 'ready', 'production']).describe('`ready` follows from the steps (every expected step settled); `production` needs a managed subscription.'),
);

export const Workflow = named(
  'Workflow',
  z.object({ id: z.string(), name: z.string(), stage: WorkflowStage, steps_expected: int(), steps_settled: int(), ready: z.boolean() }),
);

export const WorkflowStageView = named('WorkflowStageView', z.object({ id: z.string(), stage: WorkflowStage }));

const StepCachePolicy = named('StepCachePolicy', z.object({ exact: z.boolean(), semantic: z.boolean() }));
const StepPruningPolicy = named('StepPruningPolicy', z.object({ enabled: z.boolean(), n: int(), retention: z.number(), lcb: z.number() }));
const StepEvidence = named('StepEvidence', z.object({ n: int(), retention: z.number(), lcb: z.number(), cost_share: z.number() }).describe("The optimizer's evidence for a step's policy."));
const StepExplorationSpend = named('StepExplorationSpend', z.object({ spent_usd: z.number(), share_of_baseline: z.number() }));

/** What a step is served by, as the report shows it and the lockfile pins it. */
const policyFields = {
  policy: z.string().nullable(),
  model: z.string().nullable(),
  reasoning_effort: z.string().nullable(),
  cache: StepCachePolicy,
  pruning: StepPruningPolicy,
  evidence: StepEvidence.nullable(),
};

const ReportStep = named(
  'ReportStep',
  z.object({
    fingerprint: z.string(),
    label: z.string(),
    expected: z.boolean(),
    settled: z.boolean(),
    calls: int(),
    ...policyFields,
    exploration: StepExplorationSpend,
  }),
);

export const Report = named(
  'Report',
  z
    .object({
      workflow_id: z.string(),
      quality_floor: z.number(),
      settled: z.boolean(),
      steps: z.array(ReportStep),
      stage: WorkflowStage,
      version: int().nullable(),
      finalized_at: time().nullable(),
      newest_version: int().nullable(),
      versions: z.array(int()),
    })
    .describe('A workflow report: live (version null) or a stored version.'),
);

const LockfileStep = named(
  'LockfileStep',
  z.object({
    fingerprint: z.string(),
    label: z.string(),
    ...policyFields,
  }),
);

export const Lockfile = named(
  'Lockfile',
  z
    .object({
      lockfile_version: z.literal(1),
      workflow_id: z.string(),
      report_version: int(),
      finalized_at: time(),
      quality_floor: z.number(),
      steps: z.array(LockfileStep),
    })
    .describe('What a production workflow routes by, from the newest stored report (download it as JSON from GET /v1/workflows/:id/report/lock).'),
);

export const WorkflowEvent = named(
  'WorkflowEvent',
  z
    .looseObject({
      id: z.string(),
      kind: z.string(),
      at: time(),
      call_id: z.string().nullable().optional(),
      from: z.string().optional(),
      from_provider: z.string().optional(),
      to: z.string().optional(),
      to_provider: z.string().optional(),
      reason: z.string().optional(),
    })
    .describe('A production event (drift, failover, resettled). The failover fields are null on other kinds.'),
);
