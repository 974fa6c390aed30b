// The gateway's capabilities: the tenant control plane, declared once each (capability.ts).
// Their order is the tRPC router's and the GraphQL root fields'. Each door is made from this
// set: REST (capabilities/rest.ts), tRPC (trpc/procedures.ts), GraphQL
// (graphql/capabilities.ts) and the OpenAPI document (openapi/capabilities.ts).
import { agents, discovery } from './agents.ts';
import { billing, cancelSubscription, startSubscription, subscription } from './billing.ts';
import { breakdown, calls, savings, savingsSeries } from './calls.ts';
import type { CapabilityTree } from './capability.ts';
import { connections, managedAgents, managedRuns } from './managed.ts';
import { outcomes } from './outcomes.ts';
import { recording, recordings } from './recordings.ts';
import { settings } from './settings.ts';
import { graph, patchStep, stepCalls, steps } from './steps.ts';
import { events, finalize, lockfile, moveTo, report, stage, workflows } from './workflows.ts';

export const capabilities = {
  calls,
  savings,
  savingsSeries,
  breakdown,
  workflows,
  workflow: {
    stage,
    moveTo,
    report,
    finalize,
    lockfile,
    events,
    steps,
    patchStep,
    stepCalls,
    graph,
    recordings,
    recording,
    subscription,
    startSubscription,
    cancelSubscription,
  },
  discovery,
  agents,
  settings,
  billing,
  outcomes,
  connections,
  managedAgents,
  managedRuns,
} satisfies CapabilityTree;
