// A gateway wired to a mock OpenAI vendor, and an official `openai` SDK client on it.
import OpenAI from 'openai';
import { startOpenAIMock, type MockVendor } from '@optimizer/mock-providers';
import { authed, signup, startGateway, type GatewayOptions, type TestGateway } from './gateway.ts';

export const PLATFORM_KEY = 'sk-platform-test-key';

export interface Rig {
  gw: TestGateway;
  vendor: MockVendor;
  tenant: { api_key: string; account_id: string; workflow_id: string };
  client: OpenAI;
  close(): Promise<void>;
}

export async function startRig(opts: GatewayOptions & { vendorOptions?: Parameters<typeof startOpenAIMock>[0] } = {}): Promise<Rig> {
  const vendor = await startOpenAIMock({ apiKey: PLATFORM_KEY, ...opts.vendorOptions });
  const gw = await startGateway({ ...opts, env: { OPENAI_BASE_URL: vendor.url, OPENAI_API_KEY: PLATFORM_KEY, ...opts.env } });
  const tenant = await signup(gw);
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: tenant.api_key, maxRetries: 0 });
  const rig: Rig = {
    gw,
    vendor,
    tenant,
    client,
    async close() {
      await gw.close();
      await rig.vendor.close();
    },
  };
  return rig;
}

/** Every routing field back to its default: a routing write merges, so a write that must be the whole settings clears first. */
export const ROUTING_CLEARED: Record<string, null> = Object.fromEntries(
  ['mode', 'allowed_providers', 'tiebreak', 'ladders', 'band', 'learning_mode', 'advanced_search', 'failover', 'baseline_model', 'judge_model', 'quality_floor', 'exploration', 'cache'].map((k) => [k, null]),
);

/**
 * Sets the rig tenant's routing settings to `auto` on the mock's OpenAI models, with
 * gpt-4.1 as the baseline, plus `extra` (nothing else: earlier settings are cleared); the response, for its status.
 */
export function routeOnMockOpenAI(rig: Rig, extra: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${rig.gw.url}/v1/settings/routing`, {
    method: 'PUT',
    headers: authed(rig.tenant.api_key),
    body: JSON.stringify({ ...ROUTING_CLEARED, allowed_providers: ['openai'], baseline_model: 'gpt-4.1', ...extra }),
  });
}

/** Lets the tenant's pinned models fail over to another model (routing settings `failover: any`; the default is the same model only). */
export async function allowAnyFailover(url: string, apiKey: string): Promise<void> {
  const r = await fetch(`${url}/v1/settings/routing`, { method: 'PUT', headers: authed(apiKey), body: JSON.stringify({ failover: 'any' }) });
  if (r.status !== 200) throw new Error(`routing settings answered ${r.status}`);
}

/** The call records of a tenant, newest first, straight from the database. */
export async function callRecords(gw: TestGateway, accountId: string) {
  await gw.services.meter.flush();
  return gw.services.db.em().getConnection().execute(`select * from call_records where account_id = ? order by created_at desc`, [accountId]) as Promise<
    Record<string, any>[]
  >;
}
