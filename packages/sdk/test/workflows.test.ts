import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OptimizerClient, OptimizerError } from '../src/index.ts';
import { startServer, type TestServer } from './server.ts';

let server: TestServer;
let client: OptimizerClient;
const lock = { lockfile_version: 1, workflow_id: 'wf_1', report_version: 2, finalized_at: '2026-01-01T00:00:00.000Z', quality_floor: 0.95, steps: [] };

beforeEach(async () => {
  server = await startServer({
    'GET /v1/workflows/wf_1/report': (req) => ({ body: { workflow_id: 'wf_1', version: req.query.get('version') ? Number(req.query.get('version')) : null, steps: [] } }),
    'POST /v1/workflows/wf_1/report/finalize': { status: 201, body: { workflow_id: 'wf_1', version: 3, steps: [] } },
    'GET /v1/workflows/wf_1/report/lock': { body: lock },
    'POST /v1/workflows/wf_1/stage': { status: 402, body: { error: { message: 'needs a subscription', type: 'subscription_required', code: 'subscription_required', param: null } } },
  });
  client = new OptimizerClient({ baseURL: server.url, apiKey: 'sk-opt-tenant' });
});
afterEach(() => server.close());

describe('workflow life', () => {
  it('reads the live report or a stored version, finalizes, and reads the lockfile', async () => {
    expect((await client.workflows.report('wf_1')).version).toBeNull();
    expect((await client.workflows.report('wf_1', { version: 2 })).version).toBe(2);
    expect(server.requests[1]?.query.get('version')).toBe('2');
    expect((await client.workflows.finalize('wf_1')).version).toBe(3);
    expect(await client.workflows.lockfile('wf_1')).toEqual(lock);
  });

  it('refuses a version below 1 before sending, and surfaces the 402 of a production request', async () => {
    await expect(client.workflows.report('wf_1', { version: 0 })).rejects.toBeInstanceOf(OptimizerError);
    expect(server.requests).toHaveLength(0);
    const err = await client.workflows.moveTo('wf_1', 'production').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OptimizerError);
    expect(err).toMatchObject({ status: 402 });
    expect(server.requests[0]?.body).toEqual({ stage: 'production' });
  });
});
