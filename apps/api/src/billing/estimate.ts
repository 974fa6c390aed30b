// POST /v1/estimate (spec 4.5): a projection for a hypothetical monthly spend that deliberately
// under-claims. It is built from measured results, never a constant: estimate-basis.json, which
// bench/estimate/derive.ts writes from a routing benchmark run and a cache benchmark run (see
// its header for the rule), and the answer says how it was derived.
import { kindRange, line, mixRange, modelRange, type Prices } from './estimate-mix.ts';
import type { EstimateBasis } from './estimate-basis.ts';

export { loadEstimateBasis, type EstimateBasis } from './estimate-basis.ts';

const cents = (usd: number) => Math.floor(usd * 100) / 100; // rounded down: never a cent more than measured

/** The customer's mix, as POST /v1/estimate takes it (packages/schema estimateRequest). */
export interface EstimateMix {
  monthly_spend?: number | undefined;
  by_model?: { model: string; monthly_spend: number }[] | undefined;
  by_kind?: { kind: string; monthly_spend: number }[] | undefined;
}

export function estimate(basis: EstimateBasis, mix: EstimateMix, feeRate: number, prices: Prices) {
  const byModel = (mix.by_model ?? []).map((m) => ({ model: m.model, ...line(m.monthly_spend, modelRange(basis, m.model, prices)) }));
  const byKind = (mix.by_kind ?? []).map((k) => ({ kind: k.kind, ...line(k.monthly_spend, kindRange(basis, k.kind)) }));
  const named = [...byModel, ...byKind].reduce((a, l) => a + l.monthly_spend_usd, 0);
  const monthlySpend = mix.monthly_spend ?? named;
  const rest = Math.max(0, monthlySpend - named);
  // the part of the total the mix does not name (all of it, without a mix) is projected as the benchmark's mix
  const unnamed = rest > 0 || (byModel.length === 0 && byKind.length === 0) ? line(rest, { ...mixRange(basis), basis: "not split by model or kind: the benchmark's whole mix" }) : null;
  const lines = [...byModel, ...byKind, ...(unnamed ? [unnamed] : [])];
  const low = cents(lines.reduce((a, l) => a + l.low_usd, 0));
  const high = cents(lines.reduce((a, l) => a + l.high_usd, 0));
  const rate = (usd: number) => (monthlySpend > 0 ? Math.floor((usd / monthlySpend) * 10_000) / 10_000 : mixRange(basis).low);
  const claimed = Math.max(0, low); // parts measured at a loss lower the claim, never below nothing
  const fee = Math.ceil(claimed * feeRate * 100) / 100; // the fee rounded up, so the net is never flattered
  return {
    monthly_spend_usd: monthlySpend,
    projected_saving_rate: rate(claimed),
    projected_saving_usd: claimed,
    range: { low_rate: rate(low), high_rate: rate(high), low_usd: low, high_usd: high },
    fee_rate: feeRate,
    projected_fee_usd: fee,
    projected_net_saving_usd: Math.max(0, cents(claimed - fee)),
    under_claims: true,
    how_derived:
      `From the routing benchmark (${basis.routing.calls} calls at quality floor ${basis.routing.floor}; it measured a ${(basis.routing.measured_test_saving * 100).toFixed(1)}% saving on its test phase). ` +
      basis.method +
      ' Each part of the spend is projected as a range: the low end is what the product claims, the high end what the benchmark measured for that kind of work; spend by model is scaled by how far below the model the catalog\'s cheapest model is priced.',
    by_model: byModel,
    by_kind: byKind,
    unnamed,
    per_step: basis.routing.steps.map((s) => ({
      step: s.step,
      kind: s.kind,
      measured_saving: Math.min(s.measured.test, s.measured.train ?? s.measured.test),
      projected_saving: s.claimed,
    })),
    cache: basis.cache ? { measured_hit_rate: basis.cache.hit_rate, hit_rate_lower_95: basis.cache.hit_rate_lower_95, counted: basis.cache.counted } : null,
  };
}
