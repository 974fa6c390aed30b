// Workflows over GraphQL: the list, the stage and its move, reports, the lockfile and
// production events. REST's fields, camelCased.
import { eventsInput, reportInput, stageInput, workflowRef, type Lockfile, type LockfileStep, type Report, type ReportStep } from '@optimizer/schema';
import type { WorkflowView } from '../../reporting/workflows.ts';
import { finalizeReport, listWorkflows, moveWorkflow, workflowEventList, workflowLockfile, workflowReport, workflowStage } from '../../domain/workflows.ts';
import { type Builder, capability, reader } from '../builder.ts';

export function registerWorkflows(builder: Builder) {
  type EventView = Awaited<ReturnType<typeof workflowEventList>>[number];

  const WorkflowStage = builder.enumType('WorkflowStage', {
    description: '`ready` follows from the steps (every expected step settled); `production` needs a managed subscription.',
    values: ['tuning', 'ready', 'production'] as const,
  });

  const Workflow = builder.objectRef<WorkflowView>('Workflow').implement({
    fields: (t) => ({
      id: t.exposeString('id'),
      name: t.exposeString('name'),
      stage: t.field({ type: WorkflowStage, resolve: (w) => w.stage }),
      stepsExpected: t.exposeInt('steps_expected'),
      stepsSettled: t.exposeInt('steps_settled'),
      ready: t.exposeBoolean('ready'),
    }),
  });

  const StageView = builder.objectRef<{ id: string; stage: WorkflowView['stage'] }>('WorkflowStageView').implement({
    fields: (t) => ({ id: t.exposeString('id'), stage: t.field({ type: WorkflowStage, resolve: (w) => w.stage }) }),
  });

  const StepCache = builder.objectRef<ReportStep['cache']>('StepCachePolicy').implement({
    fields: (t) => ({ exact: t.exposeBoolean('exact'), semantic: t.exposeBoolean('semantic') }),
  });

  const StepPruningPolicy = builder.objectRef<ReportStep['pruning']>('StepPruningPolicy').implement({
    fields: (t) => ({ enabled: t.exposeBoolean('enabled'), n: t.exposeInt('n'), retention: t.exposeFloat('retention'), lcb: t.exposeFloat('lcb') }),
  });

  const Evidence = builder.objectRef<NonNullable<ReportStep['evidence']>>('StepEvidence').implement({
    description: "The optimizer's evidence for a step's policy.",
    fields: (t) => ({ n: t.exposeInt('n'), retention: t.exposeFloat('retention'), lcb: t.exposeFloat('lcb'), costShare: t.exposeFloat('cost_share') }),
  });

  const Exploration = builder.objectRef<ReportStep['exploration']>('StepExplorationSpend').implement({
    fields: (t) => ({ spentUsd: t.exposeFloat('spent_usd'), shareOfBaseline: t.exposeFloat('share_of_baseline') }),
  });

  const ReportStepRef = builder.objectRef<ReportStep>('ReportStep').implement({
    fields: (t) => ({
      fingerprint: t.exposeString('fingerprint'),
      label: t.exposeString('label'),
      expected: t.exposeBoolean('expected'),
      settled: t.exposeBoolean('settled'),
      calls: t.exposeInt('calls'),
      policy: t.exposeString('policy', { nullable: true }),
      model: t.exposeString('model', { nullable: true }),
      reasoningEffort: t.exposeString('reasoning_effort', { nullable: true }),
      cache: t.field({ type: StepCache, resolve: (s) => s.cache }),
      pruning: t.field({ type: StepPruningPolicy, resolve: (s) => s.pruning }),
      evidence: t.field({ type: Evidence, nullable: true, resolve: (s) => s.evidence }),
      exploration: t.field({ type: Exploration, resolve: (s) => s.exploration }),
    }),
  });

  const ReportRef = builder.objectRef<Report>('Report').implement({
    description: 'A workflow report: live (version null) or a stored version.',
    fields: (t) => ({
      workflowId: t.exposeString('workflow_id'),
      qualityFloor: t.exposeFloat('quality_floor'),
      settled: t.exposeBoolean('settled'),
      steps: t.field({ type: [ReportStepRef], resolve: (r) => r.steps }),
      stage: t.field({ type: WorkflowStage, resolve: (r) => r.stage }),
      version: t.exposeInt('version', { nullable: true }),
      finalizedAt: t.exposeString('finalized_at', { nullable: true }),
      newestVersion: t.exposeInt('newest_version', { nullable: true }),
      versions: t.exposeIntList('versions'),
    }),
  });

  const LockfileStepRef = builder.objectRef<LockfileStep>('LockfileStep').implement({
    fields: (t) => ({
      fingerprint: t.exposeString('fingerprint'),
      label: t.exposeString('label'),
      policy: t.exposeString('policy', { nullable: true }),
      model: t.exposeString('model', { nullable: true }),
      reasoningEffort: t.exposeString('reasoning_effort', { nullable: true }),
      cache: t.field({ type: StepCache, resolve: (s) => s.cache }),
      pruning: t.field({ type: StepPruningPolicy, resolve: (s) => s.pruning }),
      evidence: t.field({ type: Evidence, nullable: true, resolve: (s) => s.evidence }),
    }),
  });

  const LockfileRef = builder.objectRef<Lockfile>('Lockfile').implement({
    description: 'What a production workflow routes by, from the newest stored report (download it as JSON from GET /v1/workflows/:id/report/lock).',
    fields: (t) => ({
      lockfileVersion: t.exposeInt('lockfile_version'),
      workflowId: t.exposeString('workflow_id'),
      reportVersion: t.exposeInt('report_version'),
      finalizedAt: t.exposeString('finalized_at'),
      qualityFloor: t.exposeFloat('quality_floor'),
      steps: t.field({ type: [LockfileStepRef], resolve: (l) => l.steps }),
    }),
  });

  const str = (v: unknown) => (typeof v === 'string' ? v : null);

  const Event = builder.objectRef<EventView>('WorkflowEvent').implement({
    description: 'A production event (drift, failover, resettled). The failover fields are null on other kinds.',
    fields: (t) => ({
      id: t.exposeString('id'),
      kind: t.exposeString('kind'),
      at: t.exposeString('at'),
      callId: t.string({ nullable: true, resolve: (e) => str(e.call_id) }),
      from: t.string({ nullable: true, resolve: (e) => str((e as Record<string, unknown>).from) }),
      fromProvider: t.string({ nullable: true, resolve: (e) => str((e as Record<string, unknown>).from_provider) }),
      to: t.string({ nullable: true, resolve: (e) => str((e as Record<string, unknown>).to) }),
      toProvider: t.string({ nullable: true, resolve: (e) => str((e as Record<string, unknown>).to_provider) }),
      reason: t.string({ nullable: true, resolve: (e) => str((e as Record<string, unknown>).reason) }),
    }),
  });

  builder.queryFields((t) => ({
    workflows: t.field({ type: [Workflow], description: 'Each workflow with its stage and how many of its expected steps have settled.', resolve: reader(listWorkflows) }),
    workflowStage: t.field({ type: StageView, args: { id: t.arg.string({ required: true }) }, resolve: capability(workflowRef, workflowStage) }),
    report: t.field({
      type: ReportRef,
      description: 'The live report, or stored version N.',
      args: { id: t.arg.string({ required: true }), version: t.arg.int() },
      resolve: capability(reportInput, workflowReport),
    }),
    lockfile: t.field({ type: LockfileRef, args: { id: t.arg.string({ required: true }) }, resolve: capability(workflowRef, workflowLockfile) }),
    events: t.field({ type: [Event], args: { id: t.arg.string({ required: true }), days: t.arg.int() }, resolve: capability(eventsInput, workflowEventList) }),
  }));

  builder.mutationFields((t) => ({
    moveWorkflow: t.field({
      type: StageView,
      description: 'Moves a workflow to production (needs a managed subscription and a finalized report).',
      args: { id: t.arg.string({ required: true }), stage: t.arg({ type: WorkflowStage, required: true }) },
      resolve: capability(stageInput, moveWorkflow),
    }),
    finalizeReport: t.field({ type: ReportRef, description: 'Stores the live report as the next version, settled or not.', args: { id: t.arg.string({ required: true }) }, resolve: capability(workflowRef, finalizeReport) }),
  }));
}
