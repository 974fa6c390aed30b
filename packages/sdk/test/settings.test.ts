import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OptimizerClient, OptimizerError, routingSettingsSchema, type RoutingSettingsWrite as RoutingSettings } from '../src/index.ts';
import { startServer, type TestServer } from './server.ts';

let server: TestServer;
let client: OptimizerClient;

beforeEach(async () => {
  server = await startServer({ 'PUT /v1/settings/routing': (req) => ({ body: req.body }), 'GET /v1/settings/routing': { body: { mode: 'auto' } } });
  client = new OptimizerClient({ baseURL: server.url, apiKey: 'sk-opt-tenant' });
});
afterEach(() => server.close());

const full: RoutingSettings = {
  mode: 'auto',
  allowed_providers: ['openai', 'anthropic'],
  tiebreak: 'latency',
  ladders: { economy: ['gpt-4o-mini'], standard: ['gpt-4o'], premium: ['claude-opus-4'] },
  band: 0.05,
  learning_mode: 'serve',
  advanced_search: true,
  baseline_model: 'gpt-4o',
  judge_model: 'gpt-4o-mini',
  quality_floor: 0.8,
  cache: { exact: true, semantic: false, ttl_seconds: 3600, semantic_threshold: 0.95 },
};

describe('routing settings', () => {
  it('refuses a misspelled tier key without sending anything', async () => {
    const settings = { ladders: { economy: ['gpt-4o-mini'], premuim: ['gpt-4o'] } } as RoutingSettings;
    const err = await client.settings.routing.put(settings).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OptimizerError);
    expect(err).toMatchObject({ status: 0, code: 'client_validation', endpoint: 'PUT /v1/settings/routing', param: 'ladders.premuim' });
    expect((err as Error).message).toContain('premuim');
    expect(server.requests).toHaveLength(0);
  });

  it('refuses an unknown top-level or cache key and an out-of-range band', async () => {
    for (const bad of [{ moed: 'auto' }, { cache: { ttl: 60 } }, { band: 1.5 }, { mode: 'cheapest' }]) {
      await expect(client.settings.routing.put(bad as RoutingSettings)).rejects.toMatchObject({ status: 0, code: 'client_validation' });
    }
    expect(server.requests).toHaveLength(0);
  });

  it('sends valid settings, including a partial ladder update', async () => {
    expect(await client.settings.routing.put(full)).toEqual(full);
    await client.settings.routing.put({ ladders: { premium: ['claude-opus-4'] } });
    expect(server.requests.map((r) => r.body)).toEqual([full, { ladders: { premium: ['claude-opus-4'] } }]);
    expect(await client.settings.routing.get()).toEqual({ mode: 'auto' });
  });

  it('exports the schema for the server to reuse', () => {
    expect(routingSettingsSchema.safeParse(full).success).toBe(true);
    expect(routingSettingsSchema.safeParse({ ladders: { premuim: [] } }).success).toBe(false);
  });
});
