// Saying what was not done: the raw routing write keeps accepting a ladder under a key that is no
// routing tier (spec 4.5), but REST and tRPC now answer it with an `x-optimizer-warning` header
// naming the key (on every read and write while it is stored); a call to `auto:<tier>` whose tier
// has no ladder is served as before (over every allowed model, learning from the baseline) with
// the warning in the header and first in the call's reasons, on chat completions (plain and
// streamed) and the Responses API alike.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed } from './support/gateway.ts';
import { ROUTING_CLEARED, startRig, type Rig } from './support/vendor.ts';

let rig: Rig;

beforeAll(async () => {
  rig = await startRig();
  rig.vendor.script({ content: '{"score": 1, "reason": "correct"}' });
});
afterAll(async () => {
  await rig.close();
});

const WARNING = 'x-optimizer-warning';

function put(body: Record<string, unknown>): Promise<Response> {
  return fetch(`${rig.gw.url}/v1/settings/routing`, { method: 'PUT', headers: authed(rig.tenant.api_key), body: JSON.stringify(body) });
}

async function callReasons(id: string): Promise<string[]> {
  const r = await fetch(`${rig.gw.url}/v1/calls/${id}`, { headers: authed(rig.tenant.api_key) });
  expect(r.status).toBe(200);
  return ((await r.json()) as { reasons: string[] }).reasons;
}

describe('a ladder under a key that is no routing tier', () => {
  it('is stored on REST, with a warning naming it on the write and on every read while it is stored', async () => {
    const w = await put({ ...ROUTING_CLEARED, allowed_providers: ['openai'], ladders: { premium: ['gpt-4.1'], premuim: ['gpt-4o-mini'] } });
    expect(w.status).toBe(200);
    expect(((await w.json()) as { ladders: Record<string, string[]> }).ladders.premuim).toEqual(['gpt-4o-mini']);
    const warning = w.headers.get(WARNING);
    expect(warning).toMatch(/ladders\.premuim: "premuim" is not a routing tier \(economy, standard, premium\)/);
    expect(warning).not.toMatch(/ladders\.premium:/);

    const read = await fetch(`${rig.gw.url}/v1/settings/routing`, { headers: authed(rig.tenant.api_key) });
    expect(read.headers.get(WARNING)).toMatch(/ladders\.premuim/);
    // a write of another field still says it: the misspelled ladder is still there
    expect((await put({ quality_floor: 0.9 })).headers.get(WARNING)).toMatch(/ladders\.premuim/);

    const cleared = await put({ ladders: { premuim: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.headers.get(WARNING)).toBeNull();
    expect((await fetch(`${rig.gw.url}/v1/settings/routing`, { headers: authed(rig.tenant.api_key) })).headers.get(WARNING)).toBeNull();
  });

  it('is stored over tRPC with the same warning, and a known tier alone gets none', async () => {
    const mutate = (input: unknown) => fetch(`${rig.gw.url}/trpc/settings.setRouting`, { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify(input) });
    const r = await mutate({ ladders: { economy: ['gpt-4o-mini'], standrad: ['gpt-4.1'] } });
    expect(r.status, await r.clone().text()).toBe(200);
    expect(((await r.json()) as { result: { data: { ladders: Record<string, string[]> } } }).result.data.ladders.standrad).toEqual(['gpt-4.1']);
    expect(r.headers.get(WARNING)).toMatch(/^ladders\.standrad: "standrad" is not a routing tier/);

    const fixed = await mutate({ ladders: { standrad: null } });
    expect(fixed.status).toBe(200);
    expect(fixed.headers.get(WARNING)).toBeNull();
    const read = await fetch(`${rig.gw.url}/trpc/settings.routing`, { headers: authed(rig.tenant.api_key) });
    expect(read.status).toBe(200);
    expect(read.headers.get(WARNING)).toBeNull();
  });
});

describe('a call to auto:<tier> whose tier has no ladder', () => {
  beforeAll(async () => {
    // a ladders write merges tier by tier: clear first, so the only ladder is premium's
    expect((await put(ROUTING_CLEARED)).status).toBe(200);
    expect((await put({ allowed_providers: ['openai'], baseline_model: 'gpt-4.1', ladders: { premium: ['gpt-4o-mini', 'gpt-4.1'] } })).status).toBe(200);
  });

  const complete = (model: string, extra: Record<string, unknown> = {}) =>
    fetch(`${rig.gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify({ model, messages: [{ role: 'user', content: `tier ${model}` }], ...extra }) });

  it('is served, with the warning in its header and first in its reasons', async () => {
    const r = await complete('auto:economy');
    expect(r.status, await r.clone().text()).toBe(200);
    expect(r.headers.get(WARNING)).toBe('auto:economy: tier economy has no ladder in the routing settings; the call was routed over every allowed model, learning on its own from the baseline');
    const reasons = await callReasons(r.headers.get('x-optimizer-call-id')!);
    expect(reasons[0]).toBe(`warning: ${r.headers.get(WARNING)}`);
  });

  it('names a tier that does not exist as such', async () => {
    const r = await complete('auto:premuim');
    expect(r.status).toBe(200);
    expect(r.headers.get(WARNING)).toMatch(/^auto:premuim: "premuim" is not a routing tier \(economy, standard, premium\) and has no ladder/);
  });

  it('warns a stream and a Responses API call the same way', async () => {
    const streamed = await complete('auto:economy', { stream: true });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get(WARNING)).toMatch(/^auto:economy: tier economy has no ladder/);
    expect(await streamed.text()).toMatch(/\[DONE\]/);

    const responses = await fetch(`${rig.gw.url}/v1/responses`, { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify({ model: 'auto:economy', input: 'tier on the Responses API', store: false }) });
    expect(responses.status, await responses.clone().text()).toBe(200);
    expect(responses.headers.get(WARNING)).toMatch(/^auto:economy: tier economy has no ladder/);
  });

  it('says nothing when the tier has its ladder, or the call is plain auto', async () => {
    for (const model of ['auto:premium', 'auto']) {
      const r = await complete(model);
      expect(r.status).toBe(200);
      expect(r.headers.get(WARNING), model).toBeNull();
      expect((await callReasons(r.headers.get('x-optimizer-call-id')!)).some((x) => x.startsWith('warning:')), model).toBe(false);
    }
  });
});
