// Steps over GraphQL: the registry, a step's edit, the calls behind it, and the agent graph.
// REST's fields, camelCased; the optimizer's open-ended parts (phases, exploration,
// semantic-cache checks, candidates) are JSON in REST's shape.
import { stepCallsInput, stepPatchInput, workflowRef } from '@optimizer/schema';
import { agentGraph, listStepCalls, listSteps, patchStep } from '../../domain/steps.ts';
import type { StepView } from '../../optimizer/registry.ts';
import type { AgentGraph, GraphEdge, GraphNode } from '../../reporting/graph.ts';
import { type Builder, capability } from '../builder.ts';
import type { registerCalls } from './calls.ts';

export function registerSteps(builder: Builder, Call: ReturnType<typeof registerCalls>['Call']) {
  const StepPruning = builder.objectRef<StepView['pruning']>('StepPruning').implement({
    description: 'Pruned requests compared with the same requests as sent.',
    fields: (t) => ({ n: t.exposeInt('n'), retention: t.exposeFloat('retention'), lcb: t.exposeFloat('lcb') }),
  });

  const Step = builder.objectRef<StepView>('Step').implement({
    fields: (t) => ({
      fingerprint: t.exposeString('fingerprint'),
      label: t.exposeString('label'),
      firstSeen: t.exposeString('first_seen'),
      lastSeen: t.exposeString('last_seen'),
      lastSeenPhase: t.exposeString('last_seen_phase', { nullable: true }),
      phases: t.field({ type: 'JSON', resolve: (s) => s.phases }),
      calls: t.exposeInt('calls'),
      excluded: t.exposeBoolean('excluded'),
      expected: t.exposeBoolean('expected'),
      settled: t.exposeBoolean('settled'),
      chosen: t.exposeString('chosen', { nullable: true, description: 'The policy serving the step now (`model:…`, `gate:…+…`, `verify:…`).' }),
      probes: t.exposeInt('probes'),
      served: t.exposeInt('served'),
      judgeError: t.exposeFloat('judge_error'),
      pruning: t.field({ type: StepPruning, resolve: (s) => s.pruning }),
      exploration: t.field({ type: 'JSON', resolve: (s) => s.exploration }),
      semanticCache: t.field({ type: 'JSON', resolve: (s) => s.semantic_cache }),
      candidates: t.field({ type: 'JSON', resolve: (s) => s.candidates }),
    }),
  });

  const Node = builder.objectRef<GraphNode>('GraphNode').implement({
    fields: (t) => ({ fingerprint: t.exposeString('fingerprint'), label: t.exposeString('label'), calls: t.exposeInt('calls') }),
  });

  const Edge = builder.objectRef<GraphEdge>('GraphEdge').implement({
    fields: (t) => ({
      from: t.exposeString('from', { nullable: true, description: "The parent step's fingerprint; null when the declared parent names no step seen." }),
      fromLabel: t.exposeString('from_label'),
      to: t.exposeString('to'),
      toLabel: t.exposeString('to_label'),
      calls: t.exposeInt('calls'),
      inferred: t.exposeBoolean('inferred', { description: 'A chain edge read from call order, not a declared parent.' }),
    }),
  });

  const Graph = builder.objectRef<AgentGraph>('AgentGraph').implement({
    fields: (t) => ({
      agent: t.exposeString('agent'),
      nodes: t.field({ type: [Node], resolve: (g) => g.nodes }),
      edges: t.field({ type: [Edge], resolve: (g) => g.edges }),
      inferred: t.exposeBoolean('inferred'),
    }),
  });


  builder.queryFields((t) => ({
    steps: t.field({ type: [Step], description: "A workflow's step registry.", args: { id: t.arg.string({ required: true }) }, resolve: capability(workflowRef, listSteps) }),
    stepCalls: t.field({
      type: [Call],
      description: "The stored calls behind a step, newest first; `model` narrows to one served model.",
      args: { id: t.arg.string({ required: true }), fingerprint: t.arg.string({ required: true }), model: t.arg.string() },
      resolve: capability(stepCallsInput, listStepCalls),
    }),
    graph: t.field({ type: Graph, description: "The agent's steps as a graph from its calls.", args: { id: t.arg.string({ required: true }) }, resolve: capability(workflowRef, agentGraph) }),
  }));

  builder.mutationFields((t) => ({
    patchStep: t.field({
      type: Step,
      description: 'Takes a step out of the expected steps (or back), and takes its semantic cache away (or gives it back).',
      args: { id: t.arg.string({ required: true }), fingerprint: t.arg.string({ required: true }), excluded: t.arg.boolean(), semanticCache: t.arg.boolean() },
      resolve: capability(stepPatchInput, patchStep),
    }),
  }));
}
