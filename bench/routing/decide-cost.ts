// What one routing decision costs on the request path, with learning by serving (`serve`)
// against side probes only (`shadow`): the optimizer's `decide` on a step with ten cheaper
// candidates and a few hundred calls of evidence (probes, outcomes on served calls, trials),
// timed in process. Speed is measured here, never asserted in a test.
//
//   node bench/routing/decide-cost.ts [--calls 300] [--decisions 20000]
import { performance } from 'node:perf_hooks';
import { Optimizer, type DecideInput } from '../../apps/api/src/optimizer/optimizer.ts';
import type { Database } from '../../apps/api/src/db/database.ts';
import type { Meter } from '../../apps/api/src/meter/meter.ts';
import { readFlags } from '../flags.ts';
import { mulberry32 } from './prng.ts';

const USAGE = 'node bench/routing/decide-cost.ts [--calls 300] [--decisions 20000]';
const { flags } = readFlags(process.argv.slice(2), USAGE, { known: ['calls', 'decisions'] });
const CALLS = Number(flags.get('calls') ?? 300);
const DECISIONS = Number(flags.get('decisions') ?? 20000);
const BASELINE = 'big';
const CHEAPER = Array.from({ length: 10 }, (_, i) => `small-${i}`);

/** A step warmed with `CALLS` calls: each decided, noted, its probe (when asked) recorded and an outcome on a third of them. */
function warmed(learning: 'serve' | 'shadow'): { optimizer: Optimizer; input: (draw: number) => DecideInput } {
  const optimizer = new Optimizer({} as Database, { recordLearning: () => undefined } as unknown as Meter);
  const step = { accountId: 'acct', workflowId: 'wf', fingerprint: `fp-${learning}`, label: 'triage', release: '' };
  const input = (draw: number): DecideInput => ({
    step,
    baseline: BASELINE,
    cheaper: CHEAPER,
    floor: 0.95,
    allowGates: true,
    draw,
    priceShares: Object.fromEntries(CHEAPER.map((m, i) => [m, 0.02 + 0.05 * i])),
    strengthShares: Object.fromEntries(CHEAPER.map((m, i) => [m, 0.7 + 0.025 * i])),
    learning,
  });
  const rand = mulberry32(7);
  for (let i = 0; i < CALLS; i++) {
    const d = optimizer.decide(input(rand()));
    optimizer.noteCall(step, 2000, 2000);
    const served = d.policy.kind === 'model' ? d.policy.model : BASELINE;
    if (d.probe.length) {
      const answers = Object.fromEntries(d.probe.map((m) => [m, { text: rand() < 0.9 ? 'same' : 'other', score: null, costMicros: 100 }]));
      optimizer.recordProbe(step, { at: Date.now(), policy: d.probing, spentMicros: 100, baselineScore: 1, baselineText: 'same', baselineCostMicros: 2000, answers });
    }
    if (rand() < 0.3) optimizer.recordServed(step, { at: Date.now(), policy: `model:${served}`, score: rand() < 0.9 ? 1 : 0, source: 'outcome', call: `c${i}` }, BASELINE, 0.95);
  }
  return { optimizer, input };
}

function time(learning: 'serve' | 'shadow'): { usPerDecision: number; trials: number } {
  const { optimizer, input } = warmed(learning);
  const rand = mulberry32(11);
  let trials = 0;
  for (let i = 0; i < 2000; i++) optimizer.decide(input(rand())); // warm the JIT
  const t0 = performance.now();
  for (let i = 0; i < DECISIONS; i++) if (optimizer.decide(input(rand())).trial) trials++;
  return { usPerDecision: ((performance.now() - t0) * 1000) / DECISIONS, trials };
}

const shadow = time('shadow');
const serve = time('serve');
console.log(`decide(), a step of ${CALLS} calls with ${CHEAPER.length} cheaper candidates and gates, ${DECISIONS} decisions each:`);
console.log(`  shadow: ${shadow.usPerDecision.toFixed(1)} µs per decision`);
console.log(`  serve:  ${serve.usPerDecision.toFixed(1)} µs per decision (${((100 * serve.trials) / DECISIONS).toFixed(1)} % trials)`);
console.log(`  serve / shadow: ${(serve.usPerDecision / shadow.usPerDecision).toFixed(2)}×`);
console.log(JSON.stringify({ calls: CALLS, decisions: DECISIONS, shadow_us: +shadow.usPerDecision.toFixed(2), serve_us: +serve.usPerDecision.toFixed(2), ratio: +(serve.usPerDecision / shadow.usPerDecision).toFixed(3) }));
