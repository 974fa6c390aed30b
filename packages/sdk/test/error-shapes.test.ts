// One error type over the gateway's three error shapes, read from real answers of a real
// gateway: the REST envelope, tRPC's shape and GraphQL's errors[] all become an
// OptimizerError with status, endpoint, message, raw body and, on a 402, its `type`. The
// run cap's {cap, used} rides the 402 in each shape; no route answers it yet (managed
// runs do not exist), so those bodies are written here in each door's shape.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OptimizerClient, OptimizerError, toOptimizerError } from '../src/index.ts';
import { startRig, type Rig } from '../../../apps/api/test/support/vendor.ts';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
});
afterAll(async () => {
  await rig?.close();
});

const bearer = () => ({ authorization: `Bearer ${rig.tenant.api_key}`, 'content-type': 'application/json' });

describe('a 402 from each door', () => {
  it('REST: the client throws it with the type subscription_required', async () => {
    const client = new OptimizerClient({ baseURL: rig.gw.url, apiKey: rig.tenant.api_key });
    const err = await client.workflows.moveTo(rig.tenant.workflow_id, 'production').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OptimizerError);
    const e = err as OptimizerError;
    expect(e).toMatchObject({ status: 402, type: 'subscription_required', code: 'subscription_required', endpoint: `POST /v1/workflows/${rig.tenant.workflow_id}/stage`, isPaymentRequired: true });
    expect(e.message).toContain('subscription');
    expect(JSON.parse(e.rawBody)).toHaveProperty('error.type', 'subscription_required');
  });

  it('tRPC: the same 402 read from the tRPC answer carries the same type and code', async () => {
    const endpoint = 'POST /trpc/workflow.moveTo';
    const res = await fetch(`${rig.gw.url}/trpc/workflow.moveTo`, { method: 'POST', headers: bearer(), body: JSON.stringify({ id: rig.tenant.workflow_id, stage: 'production' }) });
    const raw = await res.text();
    const e = toOptimizerError(res.status, endpoint, raw, res.headers);
    expect(e).toMatchObject({ status: 402, endpoint, type: 'subscription_required', code: 'subscription_required', rawBody: raw });
    expect(e.message).toContain('subscription');
  });

  it('GraphQL: an error answer becomes the same error type with its extension code', async () => {
    const endpoint = 'POST /graphql';
    // no credential: the GraphQL door answers tenants and the admin, and nobody else
    const res = await fetch(`${rig.gw.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }) });
    const raw = await res.text();
    const e = toOptimizerError(res.status, endpoint, raw, res.headers);
    expect(e).toBeInstanceOf(OptimizerError);
    expect(e).toMatchObject({ status: 401, endpoint, code: 'UNAUTHENTICATED', rawBody: raw });
    expect(e.message).toMatch(/Bearer/);
  });
});

describe('the run cap on a 402', () => {
  const message = 'This month\'s managed runs are used up.';
  it('is read as cap and used from the REST envelope, tRPC data and GraphQL extensions', () => {
    const rest = { error: { message, type: 'run_cap_reached', code: 'run_cap_reached', param: null, cap: 100, used: 100 } };
    const trpc = { error: { message, code: -32600, data: { code: 'PAYMENT_REQUIRED', httpStatus: 402, apiCode: 'run_cap_reached', param: null, cap: 100, used: 100 } } };
    const gql = { errors: [{ message, extensions: { code: 'RUN_CAP_REACHED', status: 402, cap: 100, used: 100 } }], data: null };
    for (const body of [rest, trpc, gql]) {
      const e = toOptimizerError(402, 'POST /v1/managed-agents/a1/runs', JSON.stringify(body));
      expect(e).toMatchObject({ status: 402, type: 'run_cap_reached', cap: 100, used: 100, message });
    }
  });

  it('is null on errors that are not about the run cap', () => {
    const e = toOptimizerError(429, 'GET /v1/calls', JSON.stringify({ error: { message: 'slow down', type: 'rate_limit_error', code: 'rate_limited', param: null } }));
    expect(e).toMatchObject({ cap: null, used: null, isPaymentRequired: false });
  });
});
