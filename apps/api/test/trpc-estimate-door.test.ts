// Regression: the estimate is open to anyone on REST and tRPC, and each address is limited to
// DOOR_ESTIMATE_PER_MINUTE of them. The door guard looked for a tRPC procedure named
// `estimate`, but the procedure is `billing.estimate`, so over tRPC the estimate was never
// counted and a client could ask for projections without limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from './support/gateway.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ env: { DOOR_ESTIMATE_PER_MINUTE: '3' } });
});
afterAll(async () => {
  await gw?.close();
});

const overTrpc = () => fetch(`${gw.url}/trpc/billing.estimate?input=${encodeURIComponent(JSON.stringify({ monthly_spend: 1000 }))}`);
const overRest = () => fetch(`${gw.url}/v1/estimate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ monthly_spend: 1000 }) });

describe('the estimate door', () => {
  it('counts tRPC estimates with REST ones and refuses past the limit on both, with Retry-After', async () => {
    expect((await overTrpc()).status).toBe(200);
    expect((await overRest()).status).toBe(200);
    expect((await overTrpc()).status).toBe(200);
    const refused = await overTrpc();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await refused.json()) as { error: { data?: unknown; code?: string } }).error).toBeDefined();
    expect((await overRest()).status).toBe(429);
  });
});
