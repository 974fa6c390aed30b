// Read-only views: metered calls, the activity feed and the savings summary.
import { callsQuery } from '@optimizer/schema';
import { validate, type Transport } from '../transport.ts';

/** One metered call. Costs are USD; fields beyond these pass through. */
export interface CallRecord {
  id: string;
  [field: string]: unknown;
}

export interface ActivityEntry {
  id: string;
  [field: string]: unknown;
}

export interface SavingsSummary {
  baseline_cost?: number;
  actual_cost?: number;
  saving?: number;
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
