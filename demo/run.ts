// `npm run demo`: the gateway saving money offline. Starts a local vendor that answers from the
// demo's recorded set (demo/recorded, made by demo/make-set.ts) and grades like a judge, the gateway
// on its embedded default, and a tenant; drives the set's annotated calls through the gateway
// with `model: "auto"` and reports a share of outcomes, as a client would; prints what it
// saved and how each step settled; then leaves the gateway running for the dashboard.
//
//   npm run demo [-- --port 8787] [--exit] [--json]
import { join } from 'node:path';
import { loadData } from '../bench/routing/data.ts';
import { configureCatalog, putRoutingSettings, repoRoot, startGateway, workflowSteps, type Gateway, type Tenant } from '../bench/routing/gateway.ts';
import { interleave, runPhase } from '../bench/routing/phases.ts';
import { retention as retentionOf } from '../bench/routing/reference.ts';
import { ReplayVendor } from '../bench/routing/replay-vendor.ts';
import { expectedRetention } from './expected.ts';
import { killAll, killAllNow } from '../bench/overhead/procs.ts';

interface Options {
  port: number | undefined;
  exit: boolean;
  json: boolean;
}

function options(argv: string[]): Options {
  const o: Options = { port: undefined, exit: false, json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--exit') o.exit = true;
    else if (a === '--json') o.json = true;
    else if (a === '--port') {
      const p = Number(argv[++i]);
      if (!Number.isInteger(p) || p < 1 || p > 65535) throw new Error('--port needs a port number');
      o.port = p;
    } else throw new Error(`unknown option ${a} (options: --port N, --exit, --json)`);
  }
  return o;
}

const EMAIL = 'demo@example.com';
/** A client's quality bar, as a tenant would set it. */
const FLOOR = 0.95;
/** The task whose calls start last, after the others have settled. */
const LATE_STEP = 'review-sentiment';
/** Share of calls whose outcome the demo client reports (the rest are judged). */
const OUTCOME_RATE = 0.3;

/** What a person needs to open the two consoles: their addresses and what each signs in with. */
export interface Consoles {
  dashboard: { url: string; email: string; api_key: string };
  admin: { url: string; admin_key: string; graphql: string };
}

function consoles(gw: Gateway, tenant: Tenant): Consoles {
  return {
    dashboard: { url: `${gw.origin}/optimizer/`, email: EMAIL, api_key: tenant.apiKey },
    admin: { url: `${gw.origin}/optimizer/admin`, admin_key: gw.adminKey, graphql: `${gw.origin}/graphql` },
  };
}

/** The lines that open both consoles (demo/test/demo.test.ts reads them back). */
function consoleLines(c: Consoles): string[] {
  return [
    `dashboard:     ${c.dashboard.url}  (sign in with the email ${c.dashboard.email} and the key ${c.dashboard.api_key})`,
    `admin console: ${c.admin.url}  (sign in with the admin key ${c.admin.admin_key})`,
    `GraphiQL:      ${c.admin.graphql}  (send "authorization: Bearer <key>": the tenant key for the tenant's fields, the admin key for the platform's)`,
  ];
}

let vendor: ReplayVendor | undefined;
const cleanups: (() => void)[] = [];
async function shutdown(): Promise<void> {
  await killAll();
  await vendor?.stop().catch(() => undefined);
  for (const c of cleanups.splice(0)) c();
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => void shutdown().finally(() => process.exit(0)));
process.on('exit', killAllNow);

async function main(): Promise<void> {
  const o = options(process.argv.slice(2));
  const log = (line: string) => {
    if (!o.json) process.stdout.write(`${line}\n`);
  };
  const data = loadData(join(repoRoot, 'demo', 'recorded'));
  vendor = new ReplayVendor({ rows: data.rows, models: data.models, judgeNoise: 0.05, seed: 1 });
  const vendorUrl = await vendor.start();
  log(`local vendor (recorded answers of ${Object.keys(data.models.models).join(', ')}; it also grades as the judge): ${vendorUrl}`);
  const gw: Gateway = await startGateway((fn) => cleanups.push(fn), o.port);
  log(`gateway: ${gw.origin}`);
  await configureCatalog(gw, vendorUrl, data.models);
  const signup = await fetch(`${gw.origin}/v1/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ company: 'Demo Co', email: EMAIL }) });
  if (signup.status !== 201 && signup.status !== 200) throw new Error(`signup answered ${signup.status}: ${await signup.text()}`);
  const signed = (await signup.json()) as { api_key: string; account_id: string; workflow_id: string };
  const tenant: Tenant = { apiKey: signed.api_key, accountId: signed.account_id, workflowId: signed.workflow_id };
  await putRoutingSettings(gw, tenant, { baseline_model: data.models.baseline, judge_model: data.models.baseline, quality_floor: FLOOR });
  log(`tenant: ${EMAIL}, baseline ${data.models.baseline}, quality floor ${FLOOR}`);
  const access = consoles(gw, tenant);
  // printed before the calls too, so both consoles can be watched while the demo sends them
  for (const line of consoleLines(access)) log(line);

  // one task ships late: its calls come once the others have settled, so the newest calls (the
  // dashboard's list) show a step still learning, with its probes and grades
  const rows = [...interleave(data.rows.filter((r) => r.step !== LATE_STEP), 1, 'demo'), ...interleave(data.rows.filter((r) => r.step === LATE_STEP), 1, 'demo')];
  log(`sending ${rows.length} annotated calls (model "auto", one step per task; ${LATE_STEP} ships last), reporting ${OUTCOME_RATE * 100}% of outcomes…`);
  const run = await runPhase('train', rows, {
    gatewayOrigin: gw.origin,
    apiKey: tenant.apiKey,
    models: data.models,
    vendor,
    seed: 1,
    outcomeRate: OUTCOME_RATE,
    concurrency: 6,
    deadline: Date.now() + 15 * 60_000,
    outcomes: { state: 'unknown', sent: 0, errors: 0, lastError: null },
    log,
  });
  const failed = run.records.filter((r) => r.error !== null).length;

  const res = await fetch(`${gw.origin}/v1/dashboard/savings`, { headers: { authorization: `Bearer ${tenant.apiKey}` } });
  const savings = (await res.json()) as { calls: number; baseline_cost: number; actual_cost: number; saving: number; by_source: Record<string, number> };
  // what the step's users got, by the recorded scores: every answer served (trials included) against the baseline's on the same calls
  // and what they could expect: each answer at its policy's mean on the step (what the risk budget bounds)
  const steps = (await workflowSteps(gw, tenant)).map((s) => {
    const served = run.records.filter((r) => r.step === s.label && r.error === null);
    return {
      step: s.label,
      settled: s.settled,
      serving: s.chosen,
      retention: retentionOf(served.map((r) => r.score), served.map((r) => r.baselineScore)) ?? 1,
      expected_retention: expectedRetention(served, data.rows.filter((r) => r.step === s.label), data.models.baseline),
    };
  });
  const summary = { calls: savings.calls, failed, baseline_usd: savings.baseline_cost, actual_usd: savings.actual_cost, saving_usd: savings.saving, saving_share: savings.baseline_cost > 0 ? savings.saving / savings.baseline_cost : 0, by_source: savings.by_source, steps };
  // the demo's own tenant and admin: their keys are printed so a person (or the dashboard's test) can sign in
  if (o.json) process.stdout.write(`${JSON.stringify({ ...summary, ...access })}\n`);
  log('');
  log(`${summary.calls} calls (${failed} failed): the baseline would have cost $${summary.baseline_usd.toFixed(4)}, they cost $${summary.actual_usd.toFixed(4)}, exploring included: saved $${summary.saving_usd.toFixed(4)} (${(summary.saving_share * 100).toFixed(1)}%)`);
  for (const s of steps) log(`  ${s.step.padEnd(18)} ${s.settled ? 'settled' : 'learning'}, serving ${s.serving}, retention ${s.retention.toFixed(3)} (by the recorded scores; ${s.expected_retention?.toFixed(3) ?? 'unknown'} expected)`);
  if (o.exit) return;
  log('');
  for (const line of consoleLines(access)) log(line);
  log('the gateway keeps running; Ctrl-C stops it and removes its data');
  await new Promise(() => {});
}

try {
  await main();
  await shutdown();
  process.exit(0);
} catch (e) {
  process.stderr.write(`demo failed: ${(e as Error).stack ?? String(e)}\n`);
  await shutdown();
  process.exit(1);
}
