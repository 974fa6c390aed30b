// The measured basis of POST /v1/estimate, as bench/estimate/derive.ts writes it (estimate-basis.json).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface EstimateBasis {
  method: string;
  routing: {
    floor: number;
    calls: number;
    measured_test_saving: number;
    /** How much of the benchmark baseline's price its cheapest model saves (1 − cheapest / baseline). */
    price_headroom: number;
    steps: { step: string; kind: string | null; measured: { train: number | null; test: number }; baseline_share: number; claimed: number }[];
    claimed_rate: number;
  };
  cache: { pairs: number; hits: number; hit_rate: number; hit_rate_lower_95: number; counted: boolean } | null;
}

export function loadEstimateBasis(path = join(import.meta.dirname, 'estimate-basis.json')): EstimateBasis {
  return JSON.parse(readFileSync(path, 'utf8')) as EstimateBasis;
}
