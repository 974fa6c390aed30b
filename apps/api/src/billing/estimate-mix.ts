// The estimate of a customer's mix: each part of the monthly spend projected from what the routing
// benchmark measured for the same kind of work, as a range. The low end is what the product claims
// (per benchmark step, the lowest saving any phase measured, less the margin); the high end is what
// the benchmark measured (that lowest saving, without the margin). Neither is ever above what the
// benchmark measured for the kind.
//
// - By kind: the benchmark steps of that kind, weighted by their share of its baseline spend. A kind
//   the benchmark has no step of is projected as the benchmark's whole mix, and says so.
// - By model: the kind is unknown, so the benchmark's whole mix, scaled by how much room the model
//   leaves below it: a model whose price the cheapest catalog model undercuts by as much as the
//   benchmark's cheapest model undercut its baseline (the price headroom) gets the full figures; a
//   model with less room gets proportionally less, and the cheapest model nothing. A model the
//   catalog does not list is claimed nothing (its price is unknown).
import type { EstimateBasis } from './estimate-basis.ts';

export interface Range {
  low: number;
  high: number;
}

export interface MixLine {
  monthly_spend_usd: number;
  low_rate: number;
  high_rate: number;
  low_usd: number;
  high_usd: number;
  basis: string;
}

/** What the catalog says of a model's price, for the headroom rule. */
export interface Prices {
  /** Input plus output USD per million tokens, or undefined for a model the catalog does not list. */
  blended(model: string): number | undefined;
  /** The cheapest enabled chat model's blended price. */
  cheapest: number;
}

const r4 = (x: number) => Math.round(x * 10_000) / 10_000;
const cents = (usd: number) => Math.floor(usd * 100) / 100; // rounded down (a loss rounded up): never a cent more than measured

/** The lowest saving a benchmark step measured in any phase. */
function measuredLow(s: EstimateBasis['routing']['steps'][number]): number {
  return Math.min(s.measured.test, s.measured.train ?? s.measured.test);
}

function weighted(steps: EstimateBasis['routing']['steps']): Range {
  const w = steps.reduce((a, s) => a + s.baseline_share, 0);
  if (!(w > 0)) return { low: 0, high: 0 };
  const low = steps.reduce((a, s) => a + s.baseline_share * s.claimed, 0) / w;
  const high = steps.reduce((a, s) => a + s.baseline_share * measuredLow(s), 0) / w;
  // a kind the benchmark measured at a loss is projected at that loss: the range never rises above what was measured
  return { low: Math.min(low, high), high };
}

/** The benchmark's whole mix: the claimed rate, and the measured rates weighted alike. */
export function mixRange(basis: EstimateBasis): Range {
  const all = weighted(basis.routing.steps);
  const high = Math.max(0, all.high);
  return { low: Math.min(basis.routing.claimed_rate, high), high };
}

/** The range for one kind of work, and what it rests on. */
export function kindRange(basis: EstimateBasis, kind: string): Range & { basis: string } {
  const steps = basis.routing.steps.filter((s) => s.kind === kind);
  if (steps.length === 0) {
    const mix = mixRange(basis);
    return { ...mix, basis: `the benchmark has no ${kind} step: projected as its whole mix of ${basis.routing.steps.map((s) => s.step).join(', ')}` };
  }
  const range = weighted(steps);
  const named = steps.map((s) => `${s.step} (measured ${(measuredLow(s) * 100).toFixed(1)}%, claimed ${(s.claimed * 100).toFixed(1)}%)`).join(', ');
  const loss = range.high < 0 ? `; the benchmark measured ${kind} at a loss, so routing it is projected to cost more than it saves` : '';
  return { ...range, basis: `the benchmark's ${kind} step${steps.length > 1 ? 's' : ''} ${named}, weighted by baseline spend${loss}` };
}

/** The range for spend on one model, and what it rests on. */
export function modelRange(basis: EstimateBasis, model: string, prices: Prices): Range & { basis: string } {
  const price = prices.blended(model);
  if (price === undefined) return { low: 0, high: 0, basis: `${model} is not in the catalog: its price is unknown, so nothing is claimed` };
  const headroom = price > 0 ? Math.max(0, 1 - prices.cheapest / price) : 0;
  const scale = Math.min(1, headroom / (basis.routing.price_headroom || 1));
  const mix = mixRange(basis);
  return {
    low: mix.low * scale,
    high: mix.high * scale,
    basis: `the benchmark's whole mix scaled by ${r4(scale)}: the cheapest catalog model costs ${(100 * (1 - headroom)).toFixed(1)}% of ${model}'s price, against ${(100 * (1 - basis.routing.price_headroom)).toFixed(1)}% in the benchmark`,
  };
}

export function line(spend: number, r: Range & { basis: string }): MixLine {
  return { monthly_spend_usd: spend, low_rate: r4(r.low), high_rate: r4(r.high), low_usd: cents(spend * r.low), high_usd: cents(spend * r.high), basis: r.basis };
}
