// The step registry of a workflow (spec 4.2), the calls behind a step, and the agent graph
// (spec 4.3).
import { z } from 'zod';
import { stepCallsInput, stepPatchInput, workflowRef } from '@optimizer/schema';
import { agentGraph, listStepCalls, listSteps, patchStep as patch } from '../domain/steps.ts';
import { capability } from './capability.ts';
import { Call } from './views/calls.ts';
import { AgentGraph, Step } from './views/steps.ts';

export const steps = capability({
  auth: 'control',
  input: workflowRef,
  output: z.array(Step),
  run: listSteps,
  rest: { method: 'get', path: '/v1/workflows/:id/steps', list: true, tag: 'Workflows', summary: 'The step registry', answer: 'The steps.', errors: ['not_found'] },
  graphql: { name: 'steps', description: "A workflow's step registry." },
});

export const patchStep = capability({
  auth: 'control',
  input: stepPatchInput,
  output: Step,
  run: patch,
  rest: {
    method: 'patch',
    path: '/v1/workflows/:id/steps/:fingerprint',
    tag: 'Workflows',
    summary: 'Exclude a step from the expected steps, or give back its semantic cache',
    answer: 'The step.',
    errors: ['not_found'],
  },
  graphql: { name: 'patchStep', description: 'Takes a step out of the expected steps (or back), and takes its semantic cache away (or gives it back).' },
});

export const stepCalls = capability({
  auth: 'control',
  input: stepCallsInput,
  output: z.array(Call),
  run: listStepCalls,
  rest: {
    method: 'get',
    path: '/v1/workflows/:id/steps/:fingerprint/calls',
    list: true,
    tag: 'Workflows',
    summary: "The stored responses behind a step's report entry",
    answer: 'The calls, each with its recording (null when none was kept).',
    errors: ['not_found'],
  },
  graphql: { name: 'stepCalls', description: 'The stored calls behind a step, newest first; `model` narrows to one served model.' },
});

export const graph = capability({
  auth: 'control',
  input: workflowRef,
  output: AgentGraph,
  run: agentGraph,
  rest: {
    method: 'get',
    path: '/v1/agents/:id/graph',
    tag: 'Agents',
    summary: "The agent's steps as a graph of its calls",
    answer: 'The call tree with declared parents; else a linear chain (`inferred: true`).',
    errors: ['not_found'],
  },
  graphql: { name: 'graph', description: "The agent's steps as a graph from its calls." },
});
