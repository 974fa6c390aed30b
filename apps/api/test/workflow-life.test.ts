// Workflow life end to end against a mock vendor whose models all agree (so a step settles):
// the live report, finalized versions, the lockfile, the stage (production refused without a
// subscription), a production workflow that keeps serving its lockfile after the catalog
// changes, and tenant isolation on every route of it, on REST and on tRPC.
import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelProfile } from '@optimizer/schema';
import type { AppRouter } from '../src/trpc/router.ts';
import { policyModels, parsePolicy } from '../src/optimizer/policies.ts';
import { authed } from './support/gateway.ts';
import { learnStep, startLearningRig, stepView, warmStep } from './support/optimizer.ts';
import { PLATFORM_KEY, type Rig } from './support/vendor.ts';

let rig: Rig;
let stranger: { api_key: string; workflow_id: string };
beforeAll(async () => {
  ({ rig, stranger } = await startLearningRig());
});
afterAll(async () => {
  await rig.close();
});

type Block = { exploration_cost: number };

/** One routed call through the official OpenAI SDK; the model that served it, its optimizer block and reasons. */
async function ask(step: string, i: number, client: OpenAI = rig.client) {
  const body = { model: 'auto', messages: [{ role: 'user', content: `classify ticket ${i}` }], optimizer: { run: { id: `run-${step}-${i}` }, step: { id: step } } };
  const { data, response } = await client.chat.completions.create(body as unknown as Parameters<typeof client.chat.completions.create>[0] & { stream?: false }).withResponse();
  await rig.gw.learned(); // what the call learns after its answer, before the next call is decided
  return { model: response.headers.get('x-optimizer-model')!, block: (data as unknown as { optimizer: Block }).optimizer, callId: response.headers.get('x-optimizer-call-id')! };
}

async function call(method: string, path: string, body?: unknown, key = rig.tenant.api_key) {
  const r = await fetch(`${rig.gw.url}${path}`, { method, headers: authed(key), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: r.status, body: (await r.json()) as any };
}

const wf = () => rig.tenant.workflow_id;
const reasonsOf = async (callId: string) => {
  const calls = (await call('GET', '/v1/calls?limit=20')).body.data as { id: string; reasons: string[] }[];
  return calls.find((c) => c.id === callId)!.reasons.join('\n');
};

function trpc(key: string) {
  return createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: `${rig.gw.url}/trpc`, headers: () => ({ authorization: `Bearer ${key}` }) })] });
}

describe('reports', () => {
  it('reads the live report, freezes numbered versions on finalize, and derives the lockfile from the newest', { timeout: 120_000 }, async () => {
    // before anything is finalized there is no stored version and no lockfile
    expect((await call('GET', `/v1/workflows/${wf()}/report/lock`)).status).toBe(404);
    expect((await call('GET', `/v1/workflows/${wf()}/report?version=1`)).status).toBe(404);

    await learnStep(rig, 'classify', (i) => ask('classify', i), 0, 125);
    const view = await stepView(rig, 'classify');
    const live = await call('GET', `/v1/workflows/${wf()}/report`);
    expect(live.status).toBe(200);
    expect(live.body).toMatchObject({ workflow_id: wf(), stage: 'ready', version: null, finalized_at: null, newest_version: null, versions: [], settled: true, quality_floor: 0.95 });
    const step = live.body.steps.find((s: any) => s.label === 'classify');
    const evidence = view.candidates.find((c: any) => c.policy === view.chosen);
    expect(step).toMatchObject({ fingerprint: view.fingerprint, settled: true, expected: true, policy: view.chosen, cache: { exact: true, semantic: true } });
    expect(step.evidence).toEqual({ n: evidence.n, retention: evidence.retention, lcb: evidence.lcb, cost_share: evidence.cost_share });
    expect(step.evidence.lcb).toBeGreaterThanOrEqual(0.95);
    expect(step.evidence.cost_share).toBeLessThan(1);

    const v1 = await call('POST', `/v1/workflows/${wf()}/report/finalize`);
    expect(v1.status).toBe(201);
    expect(v1.body).toMatchObject({ version: 1, newest_version: 1, versions: [1], settled: true, stage: 'ready' });
    expect(Date.parse(v1.body.finalized_at)).toBeGreaterThan(0);

    // more traffic moves the live report, never a stored version
    for (let i = 2000; i < 2010; i++) await ask('classify', i);
    const again = await call('GET', `/v1/workflows/${wf()}/report?version=1`);
    expect(again.body.steps).toEqual(v1.body.steps);
    const liveNow = (await call('GET', `/v1/workflows/${wf()}/report`)).body;
    expect(liveNow.steps.find((s: any) => s.label === 'classify').calls).toBeGreaterThan(step.calls);
    expect(liveNow).toMatchObject({ newest_version: 1, versions: [1] });

    const v2 = await call('POST', `/v1/workflows/${wf()}/report/finalize`);
    expect(v2.body).toMatchObject({ version: 2, newest_version: 2, versions: [1, 2] });
    const lock = await call('GET', `/v1/workflows/${wf()}/report/lock`);
    expect(lock.status).toBe(200);
    expect(lock.body).toMatchObject({ lockfile_version: 1, workflow_id: wf(), report_version: 2, finalized_at: v2.body.finalized_at, quality_floor: 0.95 });
    const pinned = lock.body.steps.find((s: any) => s.label === 'classify');
    const v2Step = v2.body.steps.find((s: any) => s.label === 'classify');
    expect(pinned).toEqual({
      fingerprint: view.fingerprint,
      label: 'classify',
      policy: v2Step.policy,
      model: v2Step.model,
      reasoning_effort: v2Step.reasoning_effort,
      cache: v2Step.cache,
      pruning: v2Step.pruning,
      evidence: v2Step.evidence,
    });
    expect(pinned.policy).toBe(view.chosen);
    expect(pinned.evidence.n).toBeGreaterThan(0);
    expect(pinned.pruning).toMatchObject({ enabled: expect.any(Boolean), n: expect.any(Number), lcb: expect.any(Number) });

    // bad versions are refused by the validator
    expect((await call('GET', `/v1/workflows/${wf()}/report?version=0`)).body.error).toMatchObject({ code: 'validation_failed', param: 'version' });
    expect((await call('GET', `/v1/workflows/${wf()}/report?version=9`)).status).toBe(404);
  });

  it('answers the same on the tRPC door, with typed inputs', async () => {
    const t = trpc(rig.tenant.api_key);
    const rest = (await call('GET', `/v1/workflows/${wf()}/report/lock`)).body;
    expect(await t.workflow.lockfile.query({ id: wf() })).toEqual(rest);
    expect(await t.workflow.report.query({ id: wf(), version: 1 })).toEqual((await call('GET', `/v1/workflows/${wf()}/report?version=1`)).body);
    expect(await t.workflow.stage.query({ id: wf() })).toEqual({ id: wf(), stage: 'ready' });
    // a bad input is refused by the same schema as on REST, naming the field
    const err = await t.workflow.report.query({ id: wf(), version: 0 }).catch((e: unknown) => e);
    expect((err as TRPCClientError<AppRouter>).data).toMatchObject({ apiCode: 'validation_failed', param: 'version' });
  });
});

describe('stages', () => {
  it('refuses production without a subscription with the catalogued 402, on REST and tRPC, and leaves the stage as it was', async () => {
    const r = await call('POST', `/v1/workflows/${wf()}/stage`, { stage: 'production' });
    expect(r.status).toBe(402);
    expect(r.body.error).toMatchObject({ code: 'subscription_required', type: 'subscription_required' });
    const err = await trpc(rig.tenant.api_key)
      .workflow.moveTo.mutate({ id: wf(), stage: 'production' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TRPCClientError);
    expect((err as TRPCClientError<AppRouter>).data).toMatchObject({ httpStatus: 402, apiCode: 'subscription_required' });
    // ready follows from the steps: it is not a stage to ask for
    expect((await call('POST', `/v1/workflows/${wf()}/stage`, { stage: 'ready' })).body.error).toMatchObject({ code: 'validation_failed', param: 'stage' });
    expect((await call('GET', `/v1/workflows/${wf()}/stage`)).body).toEqual({ id: wf(), stage: 'ready' });
    expect(((await call('GET', '/v1/workflows')).body.data as any[]).find((w) => w.id === wf())).toMatchObject({ stage: 'ready', ready: true });
  });
});

describe('a production workflow', () => {
  it('follows its lockfile after the catalog changes: the pinned policy still serves, and only drift checks explore', { timeout: 120_000 }, async () => {
    const lock = (await call('GET', `/v1/workflows/${wf()}/report/lock`)).body;
    const pinned = lock.steps.find((s: any) => s.label === 'classify');
    expect(pinned.policy).toMatch(/^model:/); // the mock's models all agree, so one cheap model settles it
    const pinnedModels = policyModels(parsePolicy(pinned.policy));
    // production runs on the tenant's own keys (spec 4.5): it stores one for OpenAI (the mock takes one key)
    expect((await call('PUT', '/v1/settings/provider-keys/openai', { key: PLATFORM_KEY })).status).toBe(200);
    // Production is entered by billing's managed subscription, which does not exist yet: this test
    // sets the stored stage directly in the database, as billing will, and has the service re-read it.
    await rig.gw.services.db.em().getConnection().execute(`update workflows set stage = 'production' where id = ?`, [wf()]);
    await rig.gw.services.workflowLife.reload();
    expect((await call('GET', `/v1/workflows/${wf()}/stage`)).body.stage).toBe('production');

    // The catalog changes after finalize: the pinned model now costs more than the baseline (tuning
    // would drop it as a candidate), and a new model is far cheaper and stronger (tuning would probe it).
    const admin = { authorization: `Bearer ${rig.gw.adminKey}`, 'content-type': 'application/json' };
    const catalog = ((await (await fetch(`${rig.gw.url}/v1/admin/catalog`, { headers: admin })).json()) as { data: ModelProfile[] }).data;
    const baseline = catalog.find((m) => m.model === 'gpt-4.1')!;
    for (const m of pinnedModels) {
      const was = catalog.find((c) => c.model === m)!;
      const put = await fetch(`${rig.gw.url}/v1/admin/catalog/${encodeURIComponent(m)}`, { method: 'PUT', headers: admin, body: JSON.stringify({ ...was, input_per_mtok: baseline.input_per_mtok * 3, output_per_mtok: baseline.output_per_mtok * 3 }) });
      expect(put.status).toBe(200);
    }
    const fresh: ModelProfile = { ...baseline, model: 'gpt-fresh-tiny', input_per_mtok: 0.001, output_per_mtok: 0.001, cached_input_per_mtok: 0.0005, strengths: Object.fromEntries(Object.keys(baseline.strengths).map((k) => [k, 0.99])) };
    expect((await fetch(`${rig.gw.url}/v1/admin/catalog/gpt-fresh-tiny`, { method: 'PUT', headers: admin, body: JSON.stringify(fresh) })).status).toBe(200);

    // plenty of traffic for exploring to pay back, had the step been tuning
    warmStep(rig, 'classify');
    let checks = 0;
    const answeredModels = new Set<unknown>();
    for (let i = 5000; i < 5420; i++) {
      const before = rig.vendor.requests.length;
      const r = await ask('classify', i);
      const sent = rig.vendor.requests.slice(before);
      const judged = sent.filter((q) => (q.body.messages as { role: string }[])[0]?.role === 'system');
      const answered = sent.filter((q) => !judged.includes(q));
      expect(r.model, `call ${i}`).toBe(pinned.model);
      expect(answered.map((q) => q.body.model), `call ${i}`).toEqual([pinned.model]); // no probe of any candidate
      for (const q of answered) answeredModels.add(q.body.model);
      if (judged.length) {
        checks++;
        // the judge (and the tenant's cheaper judge it is measured against) grades the served answer
        for (const q of judged) expect((q.body.messages as { content: string }[])[0]!.content).toMatch(/^You are a strict grader/);
        expect(await reasonsOf(r.callId)).toMatch(/drift check: the judge grades the served answer/);
      } else if (i % 50 === 0) {
        expect(await reasonsOf(r.callId)).toMatch(new RegExp(`pinned by lockfile v2: .*${pinned.model.replace(/[.]/g, '\\.')}[\\s\\S]*no probe: the lockfile is in force, only drift checks explore`));
      }
    }
    // drift checks are the only exploring: about one call in two hundred
    expect(checks).toBeGreaterThanOrEqual(1);
    expect(checks).toBeLessThanOrEqual(3);
    // the new model answered nothing: it was never probed as a candidate
    expect(answeredModels).toEqual(new Set([pinned.model]));
    const view = await stepView(rig, 'classify');
    expect(view).toMatchObject({ settled: true, chosen: pinned.policy, last_seen_phase: 'production' });

    // the control: a workflow of the same tenant still tuning, under the same catalog, does probe the new model
    const agent = (await call('POST', '/v1/agents', { name: 'control' })).body as { id: string; api_key: string };
    const control = { ...rig, tenant: { ...rig.tenant, workflow_id: agent.id, api_key: agent.api_key }, client: new OpenAI({ baseURL: `${rig.gw.url}/v1`, apiKey: agent.api_key, maxRetries: 0 }) };
    warmStep(control, 'classify');
    let probedFresh = false;
    for (let i = 0; i < 100 && !probedFresh; i++) {
      const before = rig.vendor.requests.length;
      await ask('classify', 9000 + i, control.client);
      probedFresh = rig.vendor.requests.slice(before).some((q) => q.body.model === 'gpt-fresh-tiny' && (q.body.messages as { role: string }[])[0]?.role !== 'system');
    }
    expect(probedFresh).toBe(true);
  });

  it('serves a step its lockfile does not name by the baseline, without probing', async () => {
    warmStep(rig, 'unnamed');
    for (let i = 0; i < 30; i++) {
      const before = rig.vendor.requests.length;
      const r = await ask('unnamed', i);
      expect(r.model).toBe('gpt-4.1');
      expect(r.block.exploration_cost).toBe(0);
      expect(rig.vendor.requests.slice(before).map((q) => q.body.model)).toEqual(['gpt-4.1']);
    }
  });
});

describe('a production workflow whose pinned model is disabled', () => {
  it('is served by the baseline without probing while it is off, and by the lockfile again once it is back', async () => {
    const pinned = ((await call('GET', `/v1/workflows/${wf()}/report/lock`)).body.steps as any[]).find((s) => s.label === 'classify');
    const admin = { authorization: `Bearer ${rig.gw.adminKey}`, 'content-type': 'application/json' };
    const toggle = (disabled: boolean) => fetch(`${rig.gw.url}/v1/admin/catalog/${encodeURIComponent(pinned.model)}/disabled`, { method: 'POST', headers: admin, body: JSON.stringify({ disabled }) });
    expect((await toggle(true)).status).toBe(200);
    try {
      for (let i = 7000; i < 7010; i++) {
        const before = rig.vendor.requests.length;
        const r = await ask('classify', i);
        expect(r.model).toBe('gpt-4.1');
        expect(rig.vendor.requests.slice(before).filter((q) => (q.body.messages as { role: string }[])[0]?.role !== 'system').map((q) => q.body.model)).toEqual(['gpt-4.1']);
        if (i === 7000) expect(await reasonsOf(r.callId)).toContain(`${pinned.model} cannot serve now (disabled or unreachable), so the baseline stands in`);
      }
    } finally {
      await toggle(false);
    }
    expect((await ask('classify', 7100)).model).toBe(pinned.model);
  });
});

describe('tenancy', () => {
  it("answers 404 for another tenant's workflow on every report and stage route, on REST and tRPC", async () => {
    const paths: [string, string, unknown?][] = [
      ['GET', `/v1/workflows/${wf()}/report`],
      ['GET', `/v1/workflows/${wf()}/report?version=1`],
      ['POST', `/v1/workflows/${wf()}/report/finalize`],
      ['GET', `/v1/workflows/${wf()}/report/lock`],
      ['GET', `/v1/workflows/${wf()}/stage`],
      ['POST', `/v1/workflows/${wf()}/stage`, { stage: 'production' }],
    ];
    for (const [method, path, body] of paths) {
      const r = await call(method, path, body, stranger.api_key);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
    const t = trpc(stranger.api_key);
    for (const p of [
      () => t.workflow.report.query({ id: wf() }),
      () => t.workflow.finalize.mutate({ id: wf() }),
      () => t.workflow.lockfile.query({ id: wf() }),
      () => t.workflow.stage.query({ id: wf() }),
      () => t.workflow.moveTo.mutate({ id: wf(), stage: 'production' }),
    ]) {
      const err = await p().catch((e: unknown) => e);
      expect((err as TRPCClientError<AppRouter>).data).toMatchObject({ httpStatus: 404, apiCode: 'not_found' });
    }
    // the stranger's attempt to finalize stored nothing
    expect((await call('GET', `/v1/workflows/${wf()}/report`)).body.versions).toEqual([1, 2]);
    // and the stranger's own workflow is untouched by ours
    expect((await call('GET', `/v1/workflows/${stranger.workflow_id}/report`, undefined, stranger.api_key)).body).toMatchObject({ stage: 'tuning', versions: [], steps: [] });
  });
});
