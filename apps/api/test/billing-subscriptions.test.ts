// Managed Production subscriptions on a gateway without a payment processor (issue 16; spec 3;
// with Stripe: billing-paid-production.test.ts; the wallet's charges and past due:
// billing-wallet-subscriptions.test.ts): a subscription, paid from the wallet, moves a workflow
// with a finalized report into production, cancelling keeps it there to the end of the paid
// period, and a lapsed subscription returns the workflow to `ready`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed, signup } from './support/gateway.ts';
import { startRig, type Rig } from './support/vendor.ts';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig({ env: { BILLING_SWEEP_MS: '200' } });
});
afterAll(() => rig.close());

async function call(method: string, path: string, key: string, body?: unknown) {
  const r = await fetch(`${rig.gw.url}${path}`, { method, headers: authed(key), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: r.status, body: (await r.json()) as any };
}

/** Enough in the wallet for `months` of the plan (49 USD each, paid from the wallet without a payment processor). */
const funded = (accountId: string, months = 2) => rig.gw.services.billing.credit(accountId, months * 49_000_000, 'test top-up');

const stageOf = async (key: string, wf: string) => (await call('GET', `/v1/workflows/${wf}/stage`, key)).body.stage as string;

describe('subscriptions', { timeout: 60_000 }, () => {
  it('starts production with a subscription, keeps it through the paid period after cancelling, and leaves production once lapsed', async () => {
    const t = await signup(rig.gw);
    const wf = t.workflow_id;
    expect((await call('POST', `/v1/workflows/${wf}/stage`, t.api_key, { stage: 'production' })).status).toBe(402);
    expect((await call('POST', `/v1/workflows/${wf}/report/finalize`, t.api_key)).status).toBe(201);
    await funded(t.account_id);

    const started = await call('POST', `/v1/workflows/${wf}/subscription`, t.api_key);
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ workflow_id: wf, status: 'active', cancel_at_period_end: false });
    expect(Date.parse(started.body.current_period_end)).toBeGreaterThan(Date.now() + 27 * 24 * 3600_000);
    expect(await stageOf(t.api_key, wf)).toBe('production');
    const view = (await call('GET', '/v1/billing', t.api_key)).body;
    expect(view.subscriptions).toEqual([expect.objectContaining({ workflow_id: wf, status: 'active' })]);

    const cancelled = await call('DELETE', `/v1/workflows/${wf}/subscription`, t.api_key);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', cancel_at_period_end: true, current_period_end: started.body.current_period_end });
    expect(await stageOf(t.api_key, wf)).toBe('production');

    // the paid period ends
    await rig.gw.services.db.em().getConnection().execute(`update subscriptions set current_period_end = now() - interval '1 second' where workflow_id = ?`, [wf]);
    let stage = 'production';
    for (let i = 0; i < 50 && stage === 'production'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      stage = await stageOf(t.api_key, wf);
    }
    // out of production: the stored stage is back to tuning, and the derived stage follows the steps
    // (`ready` once every expected step is settled; this workflow has none, so `tuning`)
    expect(stage).toBe('tuning');
    expect((await rig.gw.services.workflowLife.storedStages(t.account_id)).get(wf)).toBe('tuning');
    expect((await call('GET', '/v1/billing', t.api_key)).body.subscriptions).toEqual([expect.objectContaining({ workflow_id: wf, status: 'lapsed' })]);
    // and production is refused again until a new subscription
    expect((await call('POST', `/v1/workflows/${wf}/stage`, t.api_key, { stage: 'production' })).status).toBe(402);
    expect((await call('POST', `/v1/workflows/${wf}/subscription`, t.api_key)).status).toBe(201);
    expect(await stageOf(t.api_key, wf)).toBe('production');
  });

  it('refuses a subscription for a workflow without a finalized report, and keeps none (nor charges)', async () => {
    const t = await signup(rig.gw);
    await funded(t.account_id);
    const r = await call('POST', `/v1/workflows/${t.workflow_id}/subscription`, t.api_key);
    expect(r.status).toBe(409);
    expect((await call('GET', '/v1/billing', t.api_key)).body.subscriptions).toEqual([]);
    expect((await call('GET', '/v1/billing', t.api_key)).body.balances.wallet_micros).toBe(2 * 49_000_000);
    expect(await stageOf(t.api_key, t.workflow_id)).not.toBe('production');
    expect((await call('DELETE', `/v1/workflows/${t.workflow_id}/subscription`, t.api_key)).status).toBe(404);
  });

  it("never starts or cancels another tenant's subscription", async () => {
    const owner = await signup(rig.gw);
    const stranger = await signup(rig.gw);
    await call('POST', `/v1/workflows/${owner.workflow_id}/report/finalize`, owner.api_key);
    await funded(owner.account_id);
    await funded(stranger.account_id);
    expect((await call('POST', `/v1/workflows/${owner.workflow_id}/subscription`, stranger.api_key)).status).toBe(404);
    expect((await call('POST', `/v1/workflows/${owner.workflow_id}/subscription`, owner.api_key)).status).toBe(201);
    expect((await call('DELETE', `/v1/workflows/${owner.workflow_id}/subscription`, stranger.api_key)).status).toBe(404);
    expect((await call('GET', '/v1/billing', owner.api_key)).body.subscriptions[0].status).toBe('active');
  });
});
