// The platform admin API through the SDK, against a real gateway: support credit reaches the
// tenant's wallet (read back through the typed tRPC client), and the catalogue's refusals
// (a tenant key, an unknown account, a body the shared schema refuses) are OptimizerErrors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OptimizerClient, OptimizerError } from '../src/index.ts';
import { createTrpcClient } from '../src/trpc/index.ts';
import { startRig, type Rig } from '../../../apps/api/test/support/vendor.ts';

let rig: Rig;
let admin: OptimizerClient;
beforeAll(async () => {
  rig = await startRig();
  admin = new OptimizerClient({ baseURL: rig.gw.url, adminKey: rig.gw.adminKey });
});
afterAll(async () => {
  await rig?.close();
});

describe('the admin API on a gateway', () => {
  it('credits an account, and the tenant sees it in its billing view', async () => {
    const trpc = createTrpcClient({ baseURL: rig.gw.url, apiKey: rig.tenant.api_key });
    const before = (await trpc.billing.view.query()).balances.wallet_usd;
    await admin.admin.accounts.credit(rig.tenant.account_id, { amount_usd: 5, reason: 'support: refund of a failed batch' });
    expect((await trpc.billing.view.query()).balances.wallet_usd).toBeCloseTo(before + 5, 6);
  });

  it('lists the catalogue with the admin key', async () => {
    const models = await admin.admin.catalog.list();
    expect(models.length).toBeGreaterThan(0);
    expect(models.every((m) => typeof m.model === 'string' && typeof m.input_per_mtok === 'number')).toBe(true);
  });

  it('refuses a tenant key, an unknown account and a refused body as OptimizerErrors', async () => {
    const tenantAsAdmin = new OptimizerClient({ baseURL: rig.gw.url, adminKey: rig.tenant.api_key });
    await expect(tenantAsAdmin.admin.accounts.credit(rig.tenant.account_id, { amount_usd: 1, reason: 'x' })).rejects.toMatchObject({ name: 'OptimizerError', status: 401, code: 'invalid_admin_key' });
    const missing = await admin.admin.accounts.credit('acct_missing', { amount_usd: 1, reason: 'x' }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(OptimizerError);
    expect(missing).toMatchObject({ status: 404, code: 'not_found', endpoint: 'POST /v1/admin/accounts/acct_missing/credit' });
    // the shared schema refuses before anything is sent
    await expect(admin.admin.accounts.credit(rig.tenant.account_id, { amount_usd: 0, reason: 'x' })).rejects.toMatchObject({ status: 0, code: 'client_validation', param: 'amount_usd' });
    const noKey = new OptimizerClient({ baseURL: rig.gw.url });
    await expect(noKey.admin.accounts.credit(rig.tenant.account_id, { amount_usd: 1, reason: 'x' })).rejects.toMatchObject({ status: 0, code: 'missing_admin_key' });
  });
});
