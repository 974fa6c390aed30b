// POST /v1/estimate (spec 4.5): a projection for a hypothetical monthly spend that deliberately
// under-claims. It is built from measured results, never a constant: estimate-basis.json, which
// bench/estimate/derive.ts writes from a routing benchmark run and a cache benchmark run (see
// its header for the rule), and the answer says how it was derived.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface EstimateBasis {
  method: string;
  routing: {
    floor: number;
    calls: number;
    measured_test_saving: number;
    steps: { step: string; measured: { train: number | null; test: number }; baseline_share: number; claimed: number }[];
    claimed_rate: number;
  };
  cache: { pairs: number; hits: number; hit_rate: number; hit_rate_lower_95: number; counted: boolean } | null;
}

export function loadEstimateBasis(path = join(import.meta.dirname, 'estimate-basis.json')): EstimateBasis {
  return JSON.parse(readFileSync(path, 'utf8')) as EstimateBasis;
}

const cents = (usd: number) => Math.floor(usd * 100) / 100; // rounded down: never a cent more than measured

export function estimate(basis: EstimateBasis, monthlySpend: number, feeRate: number) {
  const rate = basis.routing.claimed_rate;
  const saving = cents(monthlySpend * rate);
  const fee = Math.ceil(saving * feeRate * 100) / 100; // the fee rounded up, so the net is never flattered
  return {
    monthly_spend_usd: monthlySpend,
    projected_saving_rate: rate,
    projected_saving_usd: saving,
    fee_rate: feeRate,
    projected_fee_usd: fee,
    projected_net_saving_usd: Math.max(0, cents(saving - fee)),
    under_claims: true,
    how_derived:
      `From the routing benchmark (${basis.routing.calls} calls at quality floor ${basis.routing.floor}; it measured a ${(basis.routing.measured_test_saving * 100).toFixed(1)}% saving on its test phase). ` +
      basis.method,
    per_step: basis.routing.steps.map((s) => ({
      step: s.step,
      measured_saving: Math.min(s.measured.test, s.measured.train ?? s.measured.test),
      projected_saving: s.claimed,
    })),
    cache: basis.cache ? { measured_hit_rate: basis.cache.hit_rate, hit_rate_lower_95: basis.cache.hit_rate_lower_95, counted: basis.cache.counted } : null,
  };
}
