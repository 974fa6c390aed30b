// The estimate (issue 16, acceptance 5): POST /v1/estimate, with no key, projects a saving that
// deliberately under-claims: for every benchmark step its projection is below the saving that
// step measured, and it says how it was derived.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EstimateBasis } from '../src/billing/estimate.ts';
import { startGateway, type TestGateway } from './support/gateway.ts';

const basis = JSON.parse(readFileSync(join(import.meta.dirname, '../src/billing/estimate-basis.json'), 'utf8')) as EstimateBasis;

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.close());

const post = (body: unknown) => fetch(`${gw.url}/v1/estimate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('estimate', () => {
  it('projects below the measured saving of every benchmark step, and says how it was derived', async () => {
    const r = await post({ monthly_spend: 10_000 });
    expect(r.status).toBe(200);
    const e = (await r.json()) as any;
    expect(basis.routing.steps.length).toBeGreaterThanOrEqual(3);
    expect(e.per_step.map((s: any) => s.step).sort()).toEqual(basis.routing.steps.map((s) => s.step).sort());
    for (const step of basis.routing.steps) {
      const projected = e.per_step.find((s: any) => s.step === step.step).projected_saving as number;
      expect(projected, step.step).toBeLessThan(step.measured.test);
      if (step.measured.train !== null) expect(projected, step.step).toBeLessThan(step.measured.train);
    }
    // the whole projection under-claims too, against the benchmark's own headline
    expect(e.projected_saving_rate).toBeLessThan(basis.routing.measured_test_saving);
    expect(e.projected_saving_rate).toBeGreaterThanOrEqual(0);
    expect(e.projected_saving_usd).toBeLessThanOrEqual(10_000 * e.projected_saving_rate);
    expect(e.projected_fee_usd).toBeGreaterThanOrEqual(e.projected_saving_usd * e.fee_rate - 1e-9); // rounded up to the cent
    expect(e.projected_net_saving_usd).toBeLessThanOrEqual(e.projected_saving_usd - e.projected_fee_usd + 1e-9);
    expect(e.under_claims).toBe(true);
    expect(e.how_derived).toMatch(/routing benchmark/);
    expect(e.how_derived).toMatch(/lowest saving measured/);
  });

  it('scales with the monthly spend and refuses a spend that is not a number', async () => {
    const small = (await (await post({ monthly_spend: 100 })).json()) as any;
    const large = (await (await post({ monthly_spend: 100_000 })).json()) as any;
    expect(large.projected_saving_usd).toBeGreaterThan(small.projected_saving_usd);
    expect((await post({ monthly_spend: 0 })).status).toBe(200);
    expect((await post({ monthly_spend: -5 })).status).toBe(422);
    expect((await post({ monthly_spend: 'lots' })).status).toBe(422);
  });
});
