// Read-only views: metered calls, the activity feed and the savings summary.
import { callsQuery } from '@optimizer/schema';
import { validate, type Transport } from '../transport.ts';

/** One metered call (GET /v1/calls). Costs are USD; newer fields pass through. */
export interface CallRecord {
  id: string;
  created_at: string;
  agent: string;
  model: string;
  routed_model: string | null;
  provider: string | null;
  stream: boolean;
  status: number;
  error_code: string | null;
  usage: { prompt_tokens: number; completion_tokens: number; cached_tokens: number; reasoning_tokens: number; estimated: boolean };
  cost: { baseline: number; served: number; actual: number; exploration: number };
  saving: number;
  saving_source: string | null;
  cache: { hit: boolean };
  reasons: string[];
  grades: unknown[];
  guardrail_findings: unknown[];
  latency_ms: number;
  overhead_ms: number;
  vendor_status: number | null;
  [field: string]: unknown;
}

/** One attempt at a vendor (GET /v1/activity). */
export interface ActivityEntry {
  id: string;
  call_id: string;
  agent: string;
  at: string;
  attempt: number;
  provider: string;
  model: string;
  status: number | null;
  outcome: string;
  latency_ms: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost: number;
  [field: string]: unknown;
}

/** Totals in USD (GET /v1/dashboard/savings). */
export interface SavingsSummary {
  calls: number;
  baseline_cost: number;
  actual_cost: number;
  saving: number;
  by_source: Record<string, number>;
  [field: string]: unknown;
}

export class Calls {
  readonly #t: Transport;

  constructor(t: Transport) {
    this.#t = t;
  }

  list(params: { agent?: string; limit?: number } = {}): Promise<CallRecord[]> {
    validate(callsQuery, params, 'GET /v1/calls');
    return this.#t.list<CallRecord>({ method: 'GET', path: '/v1/calls', auth: 'tenant', query: { agent: params.agent, limit: params.limit } });
  }
}

export class Activity {
  readonly #t: Transport;

  constructor(t: Transport) {
    this.#t = t;
  }

  list(params: { limit?: number } = {}): Promise<ActivityEntry[]> {
    return this.#t.list<ActivityEntry>({ method: 'GET', path: '/v1/activity', auth: 'tenant', query: { limit: params.limit } });
  }
}

export class Savings {
  readonly #t: Transport;

  constructor(t: Transport) {
    this.#t = t;
  }

  get(): Promise<SavingsSummary> {
    return this.#t.json<SavingsSummary>({ method: 'GET', path: '/v1/dashboard/savings', auth: 'tenant' });
  }
}
