// Routing benchmark: replays recorded answers of 11 models (RouterBench) through the gateway with
// model "auto", tuning on the train split and measuring on test, and compares the gateway's
// saving and quality retention with two reference lines computed from the data. See README.md.
//
//   npm run bench:routing -- [--data DIR] [--floor 0.95] [--outcome-rate 0.3] [--judge-noise 0.1]
//                            [--seed 1] [--drift] [--limit N] [--stream] [--set wrong-prior|small-steps]
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parseArgs, UsageError } from './args.ts';
import { cleanRows, loadData, readReplay, stepsOf, subsample, type DataSet, type Row } from './data.ts';
import { calibration, calibrationLine, type Calibration } from './calibration.ts';
import { configureCatalog, learningSettled, putRoutingSettings, repoRoot, signup, startGateway, workflowEvents, workflowSteps, type Gateway, type WorkflowStep } from './gateway.ts';
import { interleave, runPhase, type CallRecord, type PhaseContext } from './phases.ts';
import { outcomesByPolicy, outcomesLines } from './outcomes-by-policy.ts';
import { hash32, mulberry32 } from './prng.ts';
import { knownMix, oneModelPerStep, oracle, retention } from './reference.ts';
import { ReplayVendor } from './replay-vendor.ts';
import { buildResult, mostServed, phaseMetrics, renderSummary, type DriftInfo } from './report.ts';
import { buildSet } from './sets.ts';
import { firstProvenCall } from './trials.ts';
import { killAll, killAllNow, sleep } from '../overhead/procs.ts';

/** A policy's reported outcomes are printed from this many on. */
const MIN_SHOWN_OUTCOMES = 20;

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

let vendor: ReplayVendor | undefined;
let cleanups: (() => void)[] = [];
let shuttingDown = false;

async function shutdown(): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  await killAll();
  await vendor?.stop().catch(() => undefined);
  for (const c of cleanups) {
    try {
      c();
    } catch {
      // best effort
    }
  }
  cleanups = [];
}

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    log(`\n${sig}: stopping the gateway and the replay vendor`);
    void shutdown().finally(() => process.exit(130));
  });
}
process.on('exit', killAllNow);

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2), repoRoot);
  const t0 = Date.now();
  const notes: string[] = [];

  // Data and the reference lines (no gateway needed). A named set is built from the data here.
  let data: DataSet;
  let strengths: Record<string, number> | undefined;
  if (o.set === undefined) data = loadData(o.dataDir);
  else {
    const raw = readReplay(o.dataDir);
    const built = buildSet(o.set, raw.all, raw.models, o.seed);
    for (const line of built.lines) log(line);
    data = cleanRows(built.rows, built.models);
    strengths = built.strengths;
  }
  const base = data.models.baseline;
  const rand = mulberry32(hash32(`${o.seed}|subsample`));
  const train = subsample(
    data.rows.filter((r) => r.split === 'train'),
    o.limit,
    rand,
  );
  const test = subsample(
    data.rows.filter((r) => r.split === 'test'),
    o.limit,
    rand,
  );
  const oneModel = oneModelPerStep(train, test, data.models, o.floor);
  const oracleLine = oracle(test, data.models);
  const mixLine = knownMix(train, test, data.models, o.floor);
  log(`# Routing benchmark (seed ${o.seed}, floor ${o.floor}, outcome rate ${o.outcomeRate}, judge noise ${o.judgeNoise}${o.drift ? ', drift' : ''}${o.stream ? ', streamed' : ''})`);
  log(`data ${o.dataDir}${o.set ? ` as set ${o.set}` : ''}: ${data.rows.length} rows, ${Object.keys(data.models.models).length} models, baseline ${base}; steps ${stepsOf(data.rows).join(', ')}`);
  for (const d of data.dropped) log(`  left out: ${d}`);
  log(`train ${train.length} rows, test ${test.length} rows${o.limit !== undefined ? ` (--limit ${o.limit} per split, stratified by step)` : ''}`);

  // The replay vendor (in this process) and the gateway (a child process).
  vendor = new ReplayVendor({ rows: data.rows, models: data.models, judgeNoise: o.judgeNoise, seed: o.seed });
  const vendorUrl = await vendor.start();
  log(`replay vendor ${vendorUrl}`);
  const gw: Gateway = await startGateway((fn) => cleanups.push(fn), undefined, o.reproducible ? { ROUTING_SEED: String(o.seed) } : {});
  log(`gateway ${gw.origin} (pid ${gw.child.pid})`);
  const setup = await configureCatalog(gw, vendorUrl, data.models, strengths);
  log(`catalog: ${setup.registered.length} replay models on provider "replay"; ${setup.disabled} seeded models disabled${strengths ? `; strengths ${JSON.stringify(strengths)}` : ''}`);
  const tenant = await signup(gw);
  const settings = await putRoutingSettings(gw, tenant, { baseline_model: base, judge_model: base, quality_floor: o.floor });
  if (settings === 'not-built') {
    log('warning: PUT /v1/settings/routing answered 404 (not built yet); the gateway runs on its defaults');
    notes.push('routing settings route not built (404): baseline, judge and floor were not set');
  } else log(`routing settings: baseline ${base}, judge ${base}, floor ${o.floor}`);

  const ctx: PhaseContext = {
    gatewayOrigin: gw.origin,
    apiKey: tenant.apiKey,
    models: data.models,
    vendor,
    seed: o.seed,
    outcomeRate: o.outcomeRate,
    stream: o.stream,
    concurrency: o.concurrency,
    deadline: t0 + o.maxSeconds * 1000,
    outcomes: { state: 'unknown', sent: 0, errors: 0, lastError: null },
    ...(o.reproducible ? { settle: () => learningSettled(gw) } : {}),
    log,
  };

  log(`\ntuning phase: ${train.length} train calls, ${o.concurrency} in flight`);
  const trainRun = await runPhase('train', interleave(train, o.seed, 'train'), ctx);
  const testOrder = interleave(test, o.seed, 'test');
  const logSteps = async () => {
    const steps = await workflowSteps(gw, tenant);
    for (const st of steps) {
      log(`step ${st.label}: ${st.settled ? 'settled' : 'open'} on ${st.chosen} after ${st.probes} probes, ${st.served} graded serves; judge error rate ${st.judge_error ?? '?'}`);
      const x = st.exploration;
      if (x) log(`  exploration: ${x.calls} calls, spent ${(x.share_of_baseline * 100).toFixed(1)}% of the baseline's $${x.baseline_usd.toFixed(2)}; payback ${x.payback}×, probing ${(x.rate * 100).toFixed(0)}% of calls`);
      const l = st.learning;
      const tried = Object.entries(l?.trials ?? {}).sort((a, b) => b[1] - a[1]).map(([p, n]) => `${p} ${n}`);
      if (l && tried.length) log(`  trials: ${tried.join(', ')}; risk budget ${l.risk_budget}, ${Math.round(l.risk_used * 100)}% used`);
      for (const c of st.candidates ?? []) {
        const by = [c.by_judge && `judge ${c.by_judge.retention} on ${c.by_judge.n}`, c.by_outcome && `outcomes ${c.by_outcome.retention} on ${c.by_outcome.n}`].filter(Boolean).join(', ');
        log(`  ${c.policy}: n ${c.n}, retention ${c.retention}${by ? ` (${by})` : ''}, lcb ${c.lcb}, cost ${c.cost_share} of the baseline`);
      }
    }
    return steps;
  };
  // the estimates at the end of each phase against the data's truth on the rows each step was sent by then
  const bySteps = (rows: readonly Row[]) => Map.groupBy(rows, (r) => r.step);
  const calibrated: Record<string, Calibration> = {};
  const calibrate = (label: string, steps: WorkflowStep[], rows: readonly Row[]) => {
    calibrated[label] = calibration(steps, bySteps(rows), base);
    log(calibrationLine(label, calibrated[label]));
  };
  calibrate('tuning', await logSteps(), train);
  log(`measured phase: ${test.length} test calls`);
  let testRecords: CallRecord[];
  let skipped = trainRun.skipped;
  let drift: DriftInfo | undefined;
  if (!o.drift) {
    const r = await runPhase('test', testOrder, ctx);
    testRecords = r.records;
    skipped += r.skipped;
  } else {
    const half = Math.ceil(testOrder.length / 2);
    const first = await runPhase('test', testOrder.slice(0, half), ctx, { label: 'test (before drift)' });
    // The largest step, and the model the gateway served most on it so far.
    const counts = new Map<string, number>();
    for (const r of test) counts.set(r.step, (counts.get(r.step) ?? 0) + 1);
    const step = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0];
    const served: Record<string, number> = {};
    for (const r of first.records) if (r.step === step && r.served !== null) served[r.served] = (served[r.served] ?? 0) + 1;
    const model = mostServed(served) ?? base;
    const res = await fetch(`${vendorUrl}/__degrade`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model, step }) });
    if (!res.ok) throw new Error(`POST /__degrade answered ${res.status}: ${await res.text()}`);
    await res.body?.cancel();
    log(`drift: ${model} now answers "${step}" with a refusal (score 0)`);
    const second = await runPhase('test', testOrder.slice(half), ctx, { afterDrift: true, label: 'test (after drift)' });
    testRecords = [...first.records, ...second.records];
    skipped += first.skipped + second.skipped;
    await sleep(1000);
    const events = await workflowEvents(gw, tenant);
    const kinds: Record<string, number> = {};
    for (const e of events ?? []) kinds[e.kind] = (kinds[e.kind] ?? 0) + 1;
    const onStep = (after: boolean) => testRecords.filter((r) => r.step === step && r.afterDrift === after);
    drift = {
      model,
      step,
      detected: (kinds.drift ?? 0) > 0,
      resettled: (kinds.resettled ?? 0) > 0,
      events: events === null ? null : kinds,
      retention_before: retention(
        onStep(false).map((r) => r.score),
        onStep(false).map((r) => r.baselineScore),
      ),
      retention_after: retention(
        onStep(true).map((r) => r.score),
        onStep(true).map((r) => r.baselineScore),
      ),
    };
  }

  // Learning runs after the answer: wait until the vendor has been quiet for a while, then charge
  // every call with what the vendor was paid for its row (its answer and its learning).
  const waited = await vendor.quiet(3000, 120_000);
  log(`learning after the answers: the vendor went quiet after ${(waited / 1000).toFixed(1)} s`);
  for (const r of [...trainRun.records, ...testRecords]) r.vendor_cost = vendor.spendOf(r.rowId);
  if (vendor.stats.unattributedSpend > 0) notes.push(`$${vendor.stats.unattributedSpend.toFixed(4)} of vendor spend matched no row (not counted)`);
  if (o.calls) writeFileSync(o.calls, JSON.stringify([...trainRun.records, ...testRecords]));
  log('after the measured phase:');
  calibrate('end', await logSteps(), [...train, ...test]);
  const trainM = phaseMetrics(trainRun.records);
  const testM = phaseMetrics(testRecords);
  const firstProven = firstProvenCall([...trainRun.records, ...testRecords], base);
  const seconds = (Date.now() - t0) / 1000;
  const result = buildResult({ train: trainM, test: testM, drift, oneModel, knownMix: mixLine, oracle: oracleLine, firstProven, floor: o.floor, outcomeRate: o.outcomeRate, judgeNoise: o.judgeNoise, seconds });

  const oc = ctx.outcomes;
  if (oc.state === 'not-built') notes.push('outcomes route not built (404): no outcome was reported');
  else notes.push(`outcomes reported: ${oc.sent}${oc.errors ? `, ${oc.errors} failed (last: ${oc.lastError})` : ''}`);
  const vs = vendor.stats;
  notes.push(`replay vendor: ${Object.values(vs.completions).reduce((a, b) => a + b, 0)} answers, ${vs.judgeCalls} judge calls (${vs.judgeFlips} flipped, ${vs.judgeUnmatched} unmatched answers, ${vs.judgeUnknownRequest} unknown requests), ${vs.notFound} 404s`);
  if (skipped > 0) notes.push(`${skipped} calls not sent: --max-seconds ${o.maxSeconds} ran out`);
  const errs = [...trainRun.records, ...testRecords].filter((r) => r.error !== null);
  if (errs.length > 0) notes.push(`${errs.length} calls failed; first: ${errs[0]!.error}`);
  if (testM.saving === 0 && testM.actual_cost > 0) notes.push('the gateway saved nothing on test (it serves the baseline until its optimizer has evidence)');

  for (const line of renderSummary({ result, train: trainM, test: testM, drift, oneModel, knownMix: mixLine, firstProven, notes })) log(line);
  // what the outcomes reported said of each policy (paired with the baseline on the same rows), to check a step view's "outcomes r on n" against
  const byPolicy = outcomesByPolicy([...trainRun.records, ...testRecords], MIN_SHOWN_OUTCOMES);
  for (const line of ['', `## Outcomes reported, by the policy that served (both phases, at least ${MIN_SHOWN_OUTCOMES})`, ...outcomesLines(byPolicy)]) log(line);

  const out = o.out ?? join(repoRoot, 'bench', 'results', `routing-${new Date(t0).toISOString().replace(/[:.]/g, '-')}.json`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify({ result, options: o, train: trainM, test: testM, drift, reference: { one_model_per_step: oneModel, known_mix: mixLine, oracle: oracleLine }, outcomes_by_policy: byPolicy, calibration: calibrated, vendor: vs, notes }, null, 2)}\n`);
  log(`full result: ${relative(process.cwd(), out) || out}`);
  log(JSON.stringify(result));
}

try {
  await main();
  await shutdown();
  process.exit(0);
} catch (e) {
  if (e instanceof UsageError) {
    process.stderr.write(`${e.message}\n`);
    await shutdown();
    process.exit(2);
  }
  process.stderr.write(`routing benchmark failed: ${(e as Error).stack ?? String(e)}\n`);
  await shutdown();
  process.exit(1);
}
