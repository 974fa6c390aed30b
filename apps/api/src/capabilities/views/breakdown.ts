// What the dashboard's breakdown answers (USD): the saving per step and per source, exploration
// spend apart, and the traffic per model over time with the exploration spend as its own series.
import { z } from 'zod';
import { named, time } from '../shapes.ts';

const int = () => z.number().int();
const usd = () => z.number();

const money = {
  calls: int(),
  baseline_cost: usd().describe('What the baseline model would have cost.'),
  actual_cost: usd().describe('What the calls cost, exploration included.'),
  exploration_cost: usd().describe('Spent learning: probes of cheaper models and judge grades (part of actual_cost).'),
  saving: usd().describe('baseline_cost − actual_cost.'),
};

const BreakdownTotals = named('BreakdownTotals', z.object(money).describe('The calls of the window, summed.'));

const StepSaving = named(
  'StepSaving',
  z
    .object({
      agent: z.string(),
      agent_name: z.string(),
      step: z.string().nullable().describe("The step's label; null for calls that were not routed (pinned models, embeddings)."),
      fingerprint: z.string().nullable(),
      ...money,
    })
    .describe("One step's calls, summed."),
);

const SourceSaving = named(
  'SourceSaving',
  z
    .object({ source: z.string().describe('`routing`, `cache`, `ttc` (pruning), `trace`, or `none`: calls that saved nothing (the baseline served, or exploring cost more than it saved).'), ...money })
    .describe("One saving source's calls, summed."),
);

const ModelTraffic = named('ModelTraffic', z.object({ model: z.string().describe('The model that served (or was asked for, when none served).'), calls: int(), actual_cost: usd() }));

const TrafficPoint = named(
  'TrafficPoint',
  z.object({ at: time().describe('Start of the bucket (ISO 8601).'), calls: int(), exploration_cost: usd(), by_model: z.array(ModelTraffic) }).describe('One bucket of traffic.'),
);

export const Breakdown = named(
  'Breakdown',
  z.object({
    days: int(),
    totals: BreakdownTotals,
    by_step: z.array(StepSaving),
    by_source: z.array(SourceSaving),
    bucket_seconds: int(),
    traffic: z.array(TrafficPoint),
  }),
);
