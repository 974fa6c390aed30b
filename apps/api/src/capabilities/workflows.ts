// A tenant's workflows: the list, each one's stage and its move to production, its reports
// (live, stored, finalized now) and lockfile, and its production events (spec 2.7, 4.2, 6, 9).
import { z } from 'zod';
import { eventsInput, reportInput, stageInput, workflowRef } from '@optimizer/schema';
import { finalizeReport, listWorkflows, moveWorkflow, workflowEventList, workflowLockfile, workflowReport, workflowStage } from '../domain/workflows.ts';
import { capability } from './capability.ts';
import { graphqlName } from './shapes.ts';
import { Lockfile, Report, Workflow, WorkflowEvent, WorkflowStageView } from './views/workflows.ts';

const tag = 'Workflows';

// GraphQL takes the stage a tenant may ask for as the stage enum
graphqlName('WorkflowStage', stageInput.shape.stage);

export const workflows = capability({
  auth: 'control',
  output: z.array(Workflow),
  run: listWorkflows,
  rest: { method: 'get', path: '/v1/workflows', list: true, tag, summary: 'Workflows with their stage and progress', answer: 'Each workflow: stage, steps_expected, steps_settled, ready.' },
  graphql: { name: 'workflows', description: 'Each workflow with its stage and how many of its expected steps have settled.' },
});

export const stage = capability({
  auth: 'control',
  input: workflowRef,
  output: WorkflowStageView,
  run: workflowStage,
  rest: { method: 'get', path: '/v1/workflows/:id/stage', tag, summary: "The workflow's stage", answer: 'The stage.', errors: ['not_found'] },
  graphql: { name: 'workflowStage' },
});

export const moveTo = capability({
  auth: 'control',
  input: stageInput,
  output: WorkflowStageView,
  run: moveWorkflow,
  rest: { method: 'post', path: '/v1/workflows/:id/stage', tag, summary: 'Move the workflow to production', answer: 'The new stage.', errors: ['not_found', 'conflict', 'subscription_required'] },
  graphql: { name: 'moveWorkflow', description: 'Moves a workflow to production (needs a managed subscription and a finalized report).' },
});

export const report = capability({
  auth: 'control',
  input: reportInput,
  output: Report,
  run: workflowReport,
  rest: { method: 'get', path: '/v1/workflows/:id/report', tag, summary: 'The live report, or stored version N', answer: 'The report with its stage and newest version.', errors: ['not_found'] },
  graphql: { name: 'report', description: 'The live report, or stored version N.' },
});

export const finalize = capability({
  auth: 'control',
  input: workflowRef,
  output: Report,
  run: finalizeReport,
  rest: { method: 'post', path: '/v1/workflows/:id/report/finalize', status: 201, tag, summary: 'Store the report as final now, settled or not', answer: 'The stored version.', errors: ['not_found'] },
  graphql: { name: 'finalizeReport', description: 'Stores the live report as the next version, settled or not.' },
});

export const lockfile = capability({
  auth: 'control',
  input: workflowRef,
  output: Lockfile,
  run: workflowLockfile,
  rest: { method: 'get', path: '/v1/workflows/:id/report/lock', tag, summary: 'The lockfile, from the newest stored version', answer: 'The lockfile.', errors: ['not_found'] },
  graphql: { name: 'lockfile' },
});

export const events = capability({
  auth: 'control',
  input: eventsInput,
  output: z.array(WorkflowEvent),
  run: workflowEventList,
  rest: { method: 'get', path: '/v1/workflows/:id/events', list: true, tag, summary: 'Production events (drift, failover, resettled)', answer: 'The events of the last `days` days.', errors: ['not_found'] },
  graphql: { name: 'events' },
});
