// What the step capabilities answer: a step of the registry (its open-ended optimizer parts in
// REST's shape) and the agent's graph of steps.
import { z } from 'zod';
import { asJson, named, time } from '../shapes.ts';

const int = () => z.number().int();

const StepPruning = named('StepPruning', z.object({ n: int(), retention: z.number(), lcb: z.number() }).describe('Pruned requests compared with the same requests as sent.'));

export const Step = named(
  'Step',
  z
    .object({
      fingerprint: z.string(),
      label: z.string(),
      first_seen: time(),
      last_seen: time(),
      last_seen_phase: z.string().nullable(),
      phases: z.record(z.string(), z.looseObject({ first_seen: time(), last_seen: time(), calls: int() })).describe('Where the step was seen, by phase.'),
      calls: int(),
      excluded: z.boolean(),
      expected: z.boolean(),
      settled: z.boolean(),
      chosen: z.string().nullable().describe('The policy serving the step now (`model:…`, `gate:…+…`, `verify:…`).'),
      probes: int(),
      served: int(),
      judge_error: z.number(),
      pruning: StepPruning,
      exploration: asJson(z.looseObject({}).describe("The step's exploration as an investment (this replica's view).")),
      semantic_cache: asJson(
        z
          .looseObject({})
          .describe(
            "The judge's checks of the step's semantic-cache hits, whether it lost semantic caching, and `verification` (with `cache.semantic_error_bound` set): the bound, the learned threshold, the verified lookups and the observed error of sampled checks in the serving range.",
          ),
      ),
      candidates: asJson(z.array(z.looseObject({})).describe('The candidates the optimizer weighs for the step.')),
      learning: asJson(
        z
          .looseObject({})
          .describe(
            "Learning by serving (this replica's view): `risk_budget`, the margin over the quality floor the step's calls have earned (each baseline call 1 − floor); `risk_used`, the share of it the trials of unproven policies use at today's estimates; `trials`, calls served by each unproven policy to learn; `kind`, the kind of work its candidates' priors start from and whose steps it shares priors with (null: general), and `kind_declared`, whether its calls declare it or it was read from what they ask for.",
          ),
      ),
    })
    .describe('A step of the registry: when it was seen, whether it is expected and settled, the policy chosen, its exploration and cache state.'),
);

const GraphNode = named('GraphNode', z.object({ fingerprint: z.string(), label: z.string(), calls: int() }));

const GraphEdge = named(
  'GraphEdge',
  z.object({
    from: z.string().nullable().describe("The parent step's fingerprint; null when the declared parent names no step seen."),
    from_label: z.string(),
    to: z.string(),
    to_label: z.string(),
    calls: int(),
    inferred: z.boolean().describe('A chain edge read from call order, not a declared parent.'),
  }),
);

export const AgentGraph = named('AgentGraph', z.object({ agent: z.string(), nodes: z.array(GraphNode), edges: z.array(GraphEdge), inferred: z.boolean() }));
