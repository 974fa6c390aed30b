// Derives the measured basis of POST /v1/estimate from benchmark results, into the small JSON
// the gateway reads (apps/api/src/billing/estimate-basis.json):
//
//   node bench/estimate/derive.ts --routing bench/results/routing-….json --cache bench/results/cache-….json [--models models.json]
//
// Routing: per benchmark step, the lowest saving any measured phase showed (tuning and test),
// less a margin of 5 points, is what the estimate claims for a step like it; the rate it claims
// for a hypothetical workload is those per-step claims weighted by each step's share of the
// test phase's baseline spend, never below 0. Cache: the gateway's measured hit rate on the
// cache benchmark's repeated and paraphrased questions, at the lower end of its 95% interval;
// it is reported but not counted, since how much of an unknown workload repeats is unknown.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const MARGIN = 0.05;
/** The kind of work (catalog capability) each RouterBench task is: the estimate projects a customer's mix by kind from these. */
const STEP_KINDS: Record<string, string> = { arc_challenge: 'reasoning', mbpp: 'code', winogrande: 'reasoning' };
const Z95 = 1.96;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

/** Lower end of the Wilson score interval of k successes in n trials. */
function wilsonLower(k: number, n: number): number {
  if (n === 0) return 0;
  const p = k / n;
  const d = 1 + (Z95 * Z95) / n;
  const centre = p + (Z95 * Z95) / (2 * n);
  const spread = Z95 * Math.sqrt((p * (1 - p)) / n + (Z95 * Z95) / (4 * n * n));
  return Math.max(0, (centre - spread) / d);
}

const round = (x: number) => Math.round(x * 10_000) / 10_000;

interface PhaseStep {
  saving: number;
  baseline_cost: number;
  calls: number;
}

const routingFile = arg('routing');
const cacheFile = arg('cache');
if (!routingFile) {
  process.stderr.write('usage: node bench/estimate/derive.ts --routing ROUTING.json [--cache CACHE.json] [--out FILE]\n');
  process.exit(2);
}
const routing = JSON.parse(readFileSync(routingFile, 'utf8')) as {
  result: { saving_test: number; saving_test_reported: number; floor: number; calls: number; per_step: Record<string, { saving: number; saving_reported: number }> };
  options: { seed: number; limit?: number };
  train: { per_step: Record<string, PhaseStep> };
  test: { per_step: Record<string, PhaseStep> };
};
const testSpend = Object.values(routing.test.per_step).reduce((s, p) => s + p.baseline_cost, 0);
const steps = Object.entries(routing.test.per_step).map(([step, test]) => {
  const train = routing.train.per_step[step];
  const headline = routing.result.per_step[step];
  // every figure the run reports for the test phase (the replay-priced and the reported saving), and tuning's
  const testLow = Math.min(test.saving, headline?.saving ?? test.saving, headline?.saving_reported ?? test.saving);
  const lowest = Math.min(testLow, train?.saving ?? testLow);
  return {
    step,
    kind: STEP_KINDS[step] ?? null,
    measured: { train: train ? round(train.saving) : null, test: round(testLow) },
    test_calls: test.calls,
    baseline_share: round(test.baseline_cost / testSpend),
    claimed: round(lowest - MARGIN),
  };
});
const claimedRate = Math.max(0, steps.reduce((s, p) => s + p.baseline_share * p.claimed, 0));

// How much of the benchmark baseline's price its cheapest model saves: a customer's model with less
// room below it is projected to save proportionally less (apps/api/src/billing/estimate-mix.ts)
const modelsFile = arg('models') ?? join(import.meta.dirname, '../../../shared/data/routing/models.json');
const models = JSON.parse(readFileSync(modelsFile, 'utf8')) as { baseline: string; models: Record<string, { input_per_mtok: number; output_per_mtok: number }> };
const blended = (m: { input_per_mtok: number; output_per_mtok: number }) => m.input_per_mtok + m.output_per_mtok;
const cheapest = Math.min(...Object.values(models.models).map(blended));
const priceHeadroom = round(1 - cheapest / blended(models.models[models.baseline]!));

let cache: Record<string, unknown> | null = null;
if (cacheFile) {
  const c = JSON.parse(readFileSync(cacheFile, 'utf8')) as { gateway?: { gateway_pairs: number; gateway_hits: number; gateway_recall: number; gateway_precision: number } } & Record<string, any>;
  const g = (c.gateway ?? c) as { gateway_pairs: number; gateway_hits: number; gateway_recall: number; gateway_precision: number };
  cache = {
    pairs: g.gateway_pairs,
    hits: g.gateway_hits,
    hit_rate: round(g.gateway_hits / g.gateway_pairs),
    hit_rate_lower_95: round(wilsonLower(g.gateway_hits, g.gateway_pairs)),
    precision: g.gateway_precision,
    counted: false,
  };
}

const basis = {
  derived_by: 'bench/estimate/derive.ts',
  method:
    `Routing: per benchmark step, the lowest saving measured in any phase (tuning, test) less ${MARGIN * 100} points; ` +
    'the claimed rate is those claims weighted by each step\'s share of baseline spend, never below 0; ' +
    'the price headroom is the share of the benchmark baseline\'s price its cheapest model saves. ' +
    'Cache: the measured hit rate\'s lower 95% bound, reported but not counted (how much of a workload repeats is unknown).',
  routing: {
    floor: routing.result.floor,
    seed: routing.options.seed,
    calls: routing.result.calls,
    measured_test_saving: round(Math.min(routing.result.saving_test, routing.result.saving_test_reported)),
    margin: MARGIN,
    price_headroom: priceHeadroom,
    steps,
    claimed_rate: round(claimedRate),
  },
  cache,
};
const out = arg('out') ?? join(import.meta.dirname, '../../apps/api/src/billing/estimate-basis.json');
writeFileSync(out, JSON.stringify(basis, null, 2) + '\n');
process.stdout.write(`wrote ${out}: claims ${(claimedRate * 100).toFixed(1)}% (measured ${(basis.routing.measured_test_saving * 100).toFixed(1)}% on test)\n`);
