// The gateway's capabilities: the tenant control plane, declared once each (capability.ts).
// Their order is the tRPC router's and the GraphQL root fields'. Each door is made from this
// set: REST (capabilities/rest.ts), tRPC (trpc/procedures.ts), GraphQL
// (graphql/capabilities.ts) and the OpenAPI document (openapi/capabilities.ts).
import { agents, discovery } from './agents.ts';
import { billing, subscriptions } from './billing.ts';
import { calls, savings, savingsSeries } from './calls.ts';
import type { CapabilityTree } from './capability.ts';
import { outcomes } from './outcomes.ts';
import { recording, recordings } from './recordings.ts';
import { settings } from './settings.ts';
import { graph, patchStep, stepCalls, steps } from './steps.ts';
import { workflow, workflows } from './workflows.ts';

export const capabilities = {
  calls,
  savings,
  savingsSeries,
  workflows,
  workflow: { ...workflow, steps, patchStep, stepCalls, graph, recordings, recording, ...subscriptions },
  discovery,
  agents,
  settings,
  billing,
  outcomes,
} satisfies CapabilityTree;
