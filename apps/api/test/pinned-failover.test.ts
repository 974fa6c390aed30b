// Pinned means pinned: a pinned model whose vendor fails answers from the same model on another
// vendor that serves it (the catalog's `weights` say which), or not at all, unless the tenant's
// routing settings allow failover to another model (`failover: "any"`); the reasons say which.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIMock, type MockVendor } from '@optimizer/mock-providers';
import type { ModelProfile } from '@optimizer/schema';
import { failoverProfile } from './support/profiles.ts';
import { authed } from './support/gateway.ts';
import { startRig, type Rig } from './support/vendor.ts';

let rig: Rig;
let together: MockVendor;
let mistral: MockVendor;

// `error-5xx` is the OpenAI mock's model that always answers 500: the pinned model's vendor is down for it
const PINNED = 'error-5xx';
const SIBLING = 'same-weights-on-together';
const OTHER = 'other-model-on-mistral';

const withWeights = (p: ModelProfile, weights: string): ModelProfile => ({ ...p, weights });

beforeAll(async () => {
  together = await startOpenAIMock({ apiKey: 'sk-together' });
  mistral = await startOpenAIMock({ apiKey: 'sk-mistral' });
  rig = await startRig({ env: { TOGETHER_BASE_URL: together.url, TOGETHER_API_KEY: 'sk-together', MISTRAL_BASE_URL: mistral.url, MISTRAL_API_KEY: 'sk-mistral', UPSTREAM_MAX_RETRIES: '0', CIRCUIT_FAILURES: '1000' } });
  const conn = rig.gw.services.db.em().getConnection();
  for (const p of [withWeights(failoverProfile(PINNED, 'openai', [OTHER]), 'open-model-70b'), withWeights(failoverProfile(SIBLING, 'together', []), 'open-model-70b'), failoverProfile(OTHER, 'mistral', [])]) {
    await conn.execute(`insert into catalog_models (model, provider, profile, disabled) values (?, ?, ?, false)`, [p.model, p.provider, JSON.stringify(p)]);
  }
  await rig.gw.services.catalog.changed();
});
afterAll(async () => {
  await rig.close();
  await together.close();
  await mistral.close();
});

async function ask() {
  const r = await fetch(`${rig.gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify({ model: PINNED, messages: [{ role: 'user', content: 'still there?' }] }) });
  await rig.gw.services.meter.flush();
  const calls = (await (await fetch(`${rig.gw.url}/v1/calls?limit=1`, { headers: authed(rig.tenant.api_key) })).json()) as { data: { reasons: string[]; model: string }[] };
  return { status: r.status, model: r.headers.get('x-optimizer-model'), reasons: calls.data[0]!.reasons.join('\n') };
}

const admin = () => ({ authorization: `Bearer ${rig.gw.adminKey}`, 'content-type': 'application/json' });

describe('a pinned model whose vendor is down', () => {
  it('fails over only to the same model on another vendor by default, and says so', async () => {
    const settings = (await (await fetch(`${rig.gw.url}/v1/settings/routing`, { headers: authed(rig.tenant.api_key) })).json()) as { failover: string };
    expect(settings.failover).toBe('same_model');
    const r = await ask();
    expect(r.status).toBe(200);
    expect(r.model).toBe(SIBLING);
    expect(together.requests.map((q) => q.body.model)).toEqual([SIBLING]);
    expect(mistral.requests).toHaveLength(0); // the catalog's equivalent model was never asked
    expect(r.reasons).toMatch(`failover: only to the same model on another vendor: ${SIBLING} (together)`);
    expect(r.reasons).toMatch(`failed over from ${PINNED} (openai) to ${SIBLING} (together) (the same model on another vendor)`);
  });

  it('never answers from another model when no other vendor serves it, unless the setting allows it', async () => {
    expect((await fetch(`${rig.gw.url}/v1/admin/catalog/${SIBLING}/disabled`, { method: 'POST', headers: admin(), body: JSON.stringify({ disabled: true }) })).status).toBe(200);
    together.reset();
    for (let i = 0; i < 3; i++) {
      const r = await ask();
      expect(r.status).toBe(502);
      expect(r.reasons).toMatch(`failover: none; no other vendor serves ${PINNED}, and another model answers only with routing failover any`);
    }
    expect(mistral.requests).toHaveLength(0);
    expect(together.requests).toHaveLength(0);

    // the tenant allows another model: the catalog's equivalent answers, and the reasons say it is another model
    const put = await fetch(`${rig.gw.url}/v1/settings/routing`, { method: 'PUT', headers: authed(rig.tenant.api_key), body: JSON.stringify({ failover: 'any' }) });
    expect(put.status).toBe(200);
    expect(((await put.json()) as { failover: string }).failover).toBe('any');
    const r = await ask();
    expect(r.status).toBe(200);
    expect(r.model).toBe(OTHER);
    expect(mistral.requests.map((q) => q.body.model)).toEqual([OTHER]);
    expect(r.reasons).toMatch(`failover: routing failover is any, so another model may answer if ${PINNED}'s vendor fails: ${OTHER} (mistral)`);
    expect(r.reasons).toMatch(`failed over from ${PINNED} (openai) to ${OTHER} (mistral) (another model: the routing settings allow failover to any)`);
  });

  it('refuses an unknown failover scope', async () => {
    const put = await fetch(`${rig.gw.url}/v1/settings/routing`, { method: 'PUT', headers: authed(rig.tenant.api_key), body: JSON.stringify({ failover: 'anything' }) });
    expect(put.status).toBe(422);
  });
});
