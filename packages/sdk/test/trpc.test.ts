// The SDK's typed tRPC client against a real gateway: it reads and writes the tenant
// control plane through the tRPC door, with types from the server's AppRouter, and every
// failure (a 402, a refused key, a refused input, an unreachable gateway) is thrown as the
// one OptimizerError, carrying status, endpoint, message, raw body, type and a cap's
// {cap, used}.
import { TRPCError } from '@trpc/server';
import { getErrorShape } from '@trpc/server/unstable-core-do-not-import';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OptimizerClient, OptimizerError } from '../src/index.ts';
import { createTrpcClient, type OptimizerTrpcClient, type RouterOutputs } from '../src/trpc/index.ts';
import { ApiError } from '../../../apps/api/src/errors.ts';
import { appRouter, toTrpcError } from '../../../apps/api/src/trpc/router.ts';
import { routeOnMockOpenAI, startRig, type Rig } from '../../../apps/api/test/support/vendor.ts';
import { startServer } from './server.ts';

let rig: Rig;
let trpc: OptimizerTrpcClient;
beforeAll(async () => {
  rig = await startRig();
  expect((await routeOnMockOpenAI(rig)).status).toBe(200);
  rig.vendor.script({ content: 'Billing', usage: { prompt_tokens: 200, completion_tokens: 5 } });
  const rest = new OptimizerClient({ baseURL: rig.gw.url, apiKey: rig.tenant.api_key });
  await rest.run().complete('triage', { model: 'auto', messages: [{ role: 'user', content: 'Route this ticket' }] });
  trpc = createTrpcClient({ baseURL: rig.gw.url, apiKey: rig.tenant.api_key });
});
afterAll(async () => {
  await rig?.close();
});

describe('the tRPC client on a gateway', () => {
  it('reads savings and a workflow\'s steps, typed by the router', async () => {
    const savings: RouterOutputs['savings'] = await trpc.savings.query();
    expect(savings.calls).toBe(1);
    expect(savings.baseline_cost).toBeGreaterThan(0);
    const steps = await trpc.workflow.steps.query({ id: rig.tenant.workflow_id });
    expect(steps.map((s) => s.label)).toEqual(['triage']);
    const [step] = steps;
    const patched = await trpc.workflow.patchStep.mutate({ id: rig.tenant.workflow_id, fingerprint: step!.fingerprint, excluded: true });
    expect(patched.excluded).toBe(true);
  });

  it('answers the same data as the REST door', async () => {
    const rest = new OptimizerClient({ baseURL: rig.gw.url, apiKey: rig.tenant.api_key });
    expect(await trpc.savings.query()).toEqual(await rest.savings.get());
  });
});

describe('tRPC failures as OptimizerError', () => {
  it('a 402 carries its type, code, endpoint and the raw tRPC body', async () => {
    const err = await trpc.workflow.moveTo.mutate({ id: rig.tenant.workflow_id, stage: 'production' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OptimizerError);
    const e = err as OptimizerError;
    expect(e).toMatchObject({ status: 402, type: 'subscription_required', code: 'subscription_required', endpoint: 'POST /trpc/workflow.moveTo', isPaymentRequired: true });
    expect(e.message).toContain('subscription');
    expect(JSON.parse(e.rawBody)).toHaveProperty('error.data.apiCode', 'subscription_required');
  });

  it('a refused key and a refused input read as on REST', async () => {
    const stranger = createTrpcClient({ baseURL: rig.gw.url, apiKey: 'sk-opt-not-a-key' });
    await expect(stranger.savings.query()).rejects.toMatchObject({ name: 'OptimizerError', status: 401, code: 'invalid_api_key', endpoint: 'GET /trpc/savings' });
    const bad = await trpc.calls.list.query({ limit: -1 }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(OptimizerError);
    expect(bad).toMatchObject({ status: 422, code: 'validation_failed', param: 'limit', endpoint: 'GET /trpc/calls.list' });
  });

  it('an unreachable gateway is a connection_error with status 0', async () => {
    const server = await startServer();
    const url = server.url;
    await server.close();
    const gone = createTrpcClient({ baseURL: url, apiKey: rig.tenant.api_key });
    await expect(gone.workflows.query()).rejects.toMatchObject({ name: 'OptimizerError', status: 0, code: 'connection_error', endpoint: 'GET /trpc/workflows' });
  });

  it('a run cap\'s {cap, used} rides the router\'s own error shape', async () => {
    // no tRPC procedure starts managed runs, so the body is the router's formatter's answer
    // to the error the managed runs throw, served over HTTP
    const error = toTrpcError(new ApiError('run_cap_reached', 'This month\'s managed-run cap of 5 runs is spent (5 used).', { extra: { cap: 5, used: 5 } }));
    expect(error).toBeInstanceOf(TRPCError);
    const shape = getErrorShape({ config: appRouter._def._config, error, type: 'query', path: 'workflows', input: undefined, ctx: undefined });
    const server = await startServer({ 'GET /trpc/workflows': { status: 402, body: { error: shape } } });
    try {
      const e = await createTrpcClient({ baseURL: server.url, apiKey: 'sk-opt-x' }).workflows.query().catch((x: unknown) => x);
      expect(e).toBeInstanceOf(OptimizerError);
      expect(e).toMatchObject({ status: 402, type: 'run_cap_reached', code: 'run_cap_reached', cap: 5, used: 5, endpoint: 'GET /trpc/workflows' });
      expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-opt-x');
    } finally {
      await server.close();
    }
  });
});
