// The tRPC door: the tenant's control plane through the official tRPC client, answering
// what REST answers, with the same errors in tRPC's shape.
import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppRouter } from '../src/trpc/router.ts';
import { authed, signup } from './support/gateway.ts';
import { startRig, type Rig } from './support/vendor.ts';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
});
afterAll(async () => {
  await rig.close();
});

/** A typed client for one bearer key; every HTTP request it makes is counted. */
function client(key: string | null, sent: { requests: number } = { requests: 0 }) {
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: `${rig.gw.url}/trpc`,
        headers: () => (key ? { authorization: `Bearer ${key}` } : {}),
        fetch: (url, init) => {
          sent.requests++;
          return fetch(url, init);
        },
      }),
    ],
  });
}

async function failure(p: Promise<unknown>): Promise<TRPCClientError<AppRouter>> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TRPCClientError);
  return err as TRPCClientError<AppRouter>;
}

describe('the tRPC door', () => {
  it('reads the same calls, savings and workflows as REST, batched in one request', async () => {
    const done = await rig.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello over tRPC' }] }).withResponse();
    const callId = done.response.headers.get('x-optimizer-call-id')!;
    const sent = { requests: 0 };
    const trpc = client(rig.tenant.api_key, sent);
    const [calls, savings, workflows, activity] = await Promise.all([trpc.calls.list.query({ limit: 10 }), trpc.savings.query(), trpc.workflows.query(), trpc.calls.activity.query({ limit: 10 })]);
    expect(sent.requests).toBe(1);
    expect(calls.map((c) => c.id)).toContain(callId);

    const rest = async (path: string) => (await fetch(`${rig.gw.url}${path}`, { headers: authed(rig.tenant.api_key) })).json();
    expect(calls).toEqual(((await rest('/v1/calls?limit=10')) as { data: unknown }).data);
    expect(savings).toEqual(await rest('/v1/dashboard/savings'));
    expect(workflows).toEqual(((await rest('/v1/workflows')) as { data: unknown }).data);
    expect(activity).toEqual(((await rest('/v1/activity?limit=10')) as { data: unknown }).data);
    expect(workflows[0]).toMatchObject({ id: rig.tenant.workflow_id, stage: 'tuning', ready: false });
  });

  it('writes routing settings that REST reads back', async () => {
    const trpc = client(rig.tenant.api_key);
    const before = await trpc.settings.routing.query();
    await trpc.settings.setRouting.mutate({ ...before, quality_floor: 0.97 });
    const rest = (await (await fetch(`${rig.gw.url}/v1/settings/routing`, { headers: authed(rig.tenant.api_key) })).json()) as { quality_floor: number };
    expect(rest.quality_floor).toBe(0.97);
    expect((await trpc.settings.routing.query()).quality_floor).toBe(0.97);
  });

  it('refuses a missing or unknown key, and invalid input, with the catalogue code and field', async () => {
    const none = await failure(client(null).savings.query());
    expect(none.data).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401, apiCode: 'missing_api_key' });
    const unknown = await failure(client('sk-opt-not-a-real-key-0000000000000000000000').savings.query());
    expect(unknown.data).toMatchObject({ code: 'UNAUTHORIZED', apiCode: 'invalid_api_key' });

    const trpc = client(rig.tenant.api_key);
    const bad = await failure(trpc.calls.list.query({ limit: 0 }));
    expect(bad.data).toMatchObject({ code: 'UNPROCESSABLE_CONTENT', httpStatus: 422, apiCode: 'validation_failed', param: 'limit' });
    // the REST door says the same
    const rest = await fetch(`${rig.gw.url}/v1/calls?limit=0`, { headers: authed(rig.tenant.api_key) });
    expect(rest.status).toBe(422);
    expect(((await rest.json()) as { error: { message: string } }).error.message).toBe(bad.message);

    const missingRun = await failure(trpc.outcomes.report.mutate({ run_id: 'no-such-run', step_id: 'plan', signals: { score: 1 } }));
    expect(missingRun.data).toMatchObject({ code: 'NOT_FOUND', apiCode: 'not_found', param: 'run_id' });
    expect(missingRun.data?.stack).toBeUndefined();
  });

  it("never shows one tenant another's calls", async () => {
    const other = await signup(rig.gw, 'Other Co');
    const mine = await client(rig.tenant.api_key).calls.list.query({ limit: 50 });
    expect(mine.length).toBeGreaterThan(0);
    expect(await client(other.api_key).calls.list.query({ limit: 50 })).toEqual([]);
  });
});
