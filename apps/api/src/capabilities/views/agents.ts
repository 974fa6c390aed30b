// What the agent and discovery capabilities answer: agents with their totals, their keys (by
// hint; a key itself only in the answer that made it), and a proxy agent's discovery progress
// and report (its per-step pricing in REST's shape, JSON on GraphQL).
import { z } from 'zod';
import { asFloat, asJson, named, time } from '../shapes.ts';

const int = () => z.number().int();

export const Agent = named(
  'Agent',
  z
    .object({
      id: z.string(),
      name: z.string(),
      discovery_enabled: z.boolean(),
      created_at: time(),
      calls: asFloat(int()),
      baseline_cost: z.number(),
      actual_cost: z.number(),
      saving: z.number(),
    })
    .describe('An agent (workflow) with its call totals and savings (USD).'),
);

export const AgentKey = named('AgentKey', z.object({ id: z.string(), hint: z.string(), created_at: time(), revoked: z.boolean() }).describe('A key by its hint; the key itself is never shown again.'));

const onlyCopy = () => z.string().describe('The only copy of the key.');

export const CreatedAgent = named('CreatedAgent', z.object({ id: z.string(), name: z.string(), api_key: onlyCopy(), key_id: z.string() }));

export const CreatedKey = named('CreatedKey', z.object({ id: z.string(), api_key: onlyCopy(), hint: z.string() }));

export const RevokedKey = named('RevokedKey', z.object({ id: z.string(), revoked: z.literal(true) }));

const DiscoveryState = named('DiscoveryState', z.enum(['discovering', 'optimized']));

const DiscoveryCredit = named('DiscoveryCredit', z.object({ granted_usd: z.number(), used_usd: z.number(), remaining_usd: z.number() }));

const DiscoveryStep = named(
  'DiscoveryStep',
  z.object({ fingerprint: z.string(), label: z.string(), calls: int(), first_seen: time(), last_seen: time(), excluded: z.boolean(), settled: z.boolean(), chosen: z.string().nullable() }),
);

export const DiscoveryProgress = named(
  'DiscoveryProgress',
  z
    .object({ agent: z.string(), enabled: z.boolean(), state: DiscoveryState, credit: DiscoveryCredit, steps: z.array(DiscoveryStep) })
    .describe('Discovery of a proxy agent: its derived state, its credit and every step seen.'),
);

const usdDeltas = z.object({ baseline_usd: z.number(), chosen_usd: z.number(), saving_usd: z.number() });

const DiscoveryReportStep = named(
  'DiscoveryReportStep',
  z
    .object({
      fingerprint: z.string(),
      label: z.string(),
      settled: z.boolean(),
      excluded: z.boolean(),
      chosen: asJson(z.object({ policy: z.string(), models: z.array(z.string()), description: z.string() }).nullable()),
      baseline: asJson(z.object({ model: z.string().nullable() })),
      observed: asJson(z.object({ calls: int(), first_seen: time(), last_seen: time(), calls_per_month: int() })),
      cost: asJson(
        z.object({
          priced_from: z.enum(['catalog', 'evidence']).nullable(),
          per_call: z.object({ prompt_tokens: z.number(), completion_tokens: z.number(), cached_tokens: z.number() }),
          per_1k_calls: usdDeltas,
          per_month: usdDeltas,
        }),
      ),
      reachable: z.boolean(),
      providers: asJson(z.array(z.object({ provider: z.string().nullable(), reachable: z.boolean(), via: z.enum(['stored_key', 'platform_key']).nullable() }))),
    })
    .describe('A step: its settled answer, its priced delta against the baseline, and whether the current keys reach it.'),
);

export const DiscoveryReport = named(
  'DiscoveryReport',
  z.object({
    agent: z.string(),
    state: DiscoveryState,
    generated_at: time(),
    steps: z.array(DiscoveryReportStep),
    totals: asJson(z.object({ per_month: usdDeltas })),
  }),
);
