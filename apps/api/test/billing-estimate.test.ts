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

// Issue 34, acceptance 5: the estimate of a customer's mix. A mix of three models differs from a mix
// of one; no part of it is ever above what bench:routing measured for the same kinds (the basis file
// holds those measurements); and the answer says its basis, as a range whose low end is the claim.
describe('estimate from the customer mix', () => {
  type Line = { monthly_spend_usd: number; low_rate: number; high_rate: number; low_usd: number; high_usd: number; basis: string };
  const measuredFor = (kind: string | null) => {
    const steps = kind === null ? basis.routing.steps : basis.routing.steps.filter((s) => s.kind === kind);
    const low = steps.map((s) => Math.min(s.measured.test, s.measured.train ?? s.measured.test));
    const w = steps.reduce((a, s) => a + s.baseline_share, 0);
    return { max: Math.max(...low), weighted: steps.reduce((a, s, i) => a + s.baseline_share * low[i]!, 0) / w };
  };

  it('differs between a mix of three models and a mix of one, and never claims above what the benchmark measured', async () => {
    const one = (await (await post({ by_model: [{ model: 'gpt-5', monthly_spend: 9_000 }] })).json()) as any;
    const three = (await (
      await post({ by_model: [{ model: 'gpt-5', monthly_spend: 3_000 }, { model: 'gpt-4o-mini', monthly_spend: 3_000 }, { model: 'claude-sonnet-4-5', monthly_spend: 3_000 }] })
    ).json()) as any;
    expect(one.monthly_spend_usd).toBe(9_000);
    expect(three.monthly_spend_usd).toBe(9_000);
    expect(three.projected_saving_usd).not.toBe(one.projected_saving_usd);
    // a cheap model has less room below it than a flagship, so the three-model mix is projected to save less
    expect(three.projected_saving_usd).toBeLessThan(one.projected_saving_usd);
    const mix = measuredFor(null);
    for (const e of [one, three]) {
      expect(e.range.low_usd).toBe(e.projected_saving_usd);
      expect(e.range.low_rate).toBeLessThanOrEqual(e.range.high_rate);
      expect(e.range.high_rate).toBeLessThanOrEqual(mix.weighted + 1e-9); // the model's kind is unknown: never above the benchmark's whole mix
      expect(e.projected_saving_rate).toBeLessThanOrEqual(basis.routing.claimed_rate + 1e-9);
      for (const l of e.by_model as (Line & { model: string })[]) {
        expect(l.low_rate).toBeLessThanOrEqual(l.high_rate);
        expect(l.high_rate).toBeLessThanOrEqual(mix.weighted + 1e-9);
        expect(l.low_usd).toBeLessThanOrEqual(l.monthly_spend_usd * l.low_rate + 1e-9);
        expect(l.basis).toMatch(/benchmark's whole mix scaled by [\d.]+: the cheapest catalog model costs [\d.]+% of .+'s price, against [\d.]+% in the benchmark/);
      }
      expect(e.unnamed).toBeNull();
      expect(e.how_derived).toMatch(/low end is what the product claims, the high end what the benchmark measured/);
    }
    const mini = (three.by_model as (Line & { model: string })[]).find((l) => l.model === 'gpt-4o-mini')!;
    const flagship = (three.by_model as (Line & { model: string })[]).find((l) => l.model === 'gpt-5')!;
    expect(mini.low_rate).toBeLessThan(flagship.low_rate);
  });

  it('projects spend by kind from the benchmark steps of that kind, never above what they measured', async () => {
    const e = (await (
      await post({ monthly_spend: 12_000, by_kind: [{ kind: 'reasoning', monthly_spend: 5_000 }, { kind: 'code', monthly_spend: 4_000 }, { kind: 'chat', monthly_spend: 1_000 }] })
    ).json()) as any;
    expect(e.monthly_spend_usd).toBe(12_000);
    const lines = e.by_kind as (Line & { kind: string })[];
    for (const kind of ['reasoning', 'code']) {
      const l = lines.find((x) => x.kind === kind)!;
      const measured = measuredFor(kind);
      expect(l.high_rate, kind).toBeLessThanOrEqual(measured.max + 1e-9);
      expect(l.high_rate, kind).toBeLessThanOrEqual(measured.weighted + 1e-4);
      expect(l.low_rate, kind).toBeLessThanOrEqual(l.high_rate);
      expect(l.basis).toMatch(new RegExp(`the benchmark's ${kind} step`));
    }
    // the benchmark measured code steps at a loss: code is projected at a loss, and says so
    const code0 = lines.find((x) => x.kind === 'code')!;
    expect(code0.low_usd).toBeLessThan(0);
    expect(code0.basis).toMatch(/measured code at a loss/);
    // a kind the benchmark has no step of is projected as its whole mix, and says so
    expect(lines.find((x) => x.kind === 'chat')!.basis).toMatch(/the benchmark has no chat step: projected as its whole mix/);
    // the 2,000 the mix does not name is projected as the benchmark's mix
    expect(e.unnamed).toMatchObject({ monthly_spend_usd: 2_000, low_rate: basis.routing.claimed_rate });
    expect(e.projected_saving_usd).toBeCloseTo(Math.max(0, lines.reduce((a, l) => a + l.low_usd, 0) + e.unnamed.low_usd), 1);
    expect(e.range.low_usd).toBe(e.projected_saving_usd);
    // a mix mostly of reasoning differs from one mostly of code
    const code = (await (await post({ by_kind: [{ kind: 'code', monthly_spend: 10_000 }] })).json()) as any;
    const reasoning = (await (await post({ by_kind: [{ kind: 'reasoning', monthly_spend: 10_000 }] })).json()) as any;
    expect(reasoning.projected_saving_usd).toBeGreaterThan(code.projected_saving_usd);
    expect(code.projected_saving_usd).toBe(0);
    expect(code.range.high_rate).toBeLessThan(0);
  });

  it('claims nothing for a model the catalog does not list, and refuses a mix larger than the total', async () => {
    const e = (await (await post({ by_model: [{ model: 'some-private-model', monthly_spend: 1_000 }] })).json()) as any;
    expect(e.projected_saving_usd).toBe(0);
    expect(e.by_model[0].basis).toMatch(/not in the catalog/);
    const r = await post({ monthly_spend: 100, by_model: [{ model: 'gpt-5', monthly_spend: 500 }] });
    expect(r.status).toBe(422);
    expect((await post({})).status).toBe(422);
    expect((await post({ by_kind: [{ kind: 'poetry', monthly_spend: 1 }] })).status).toBe(422);
  });
});
