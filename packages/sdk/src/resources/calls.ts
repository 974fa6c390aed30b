// Read-only views: metered calls, the activity feed and the savings summary.
import { callRef, callsQuery } from '@optimizer/schema';
import { OptimizerError } from '../errors.ts';
import { callCapability, type CallOptions, type CapabilityInput, type CapabilityOutput } from '../rest/route.ts';
import { seg, validate, type Transport } from '../transport.ts';
import type { Input, Output, Row } from '../trpc/outputs.ts';

/** One metered call (GET /v1/calls). Costs are USD. */
export type CallRecord = Row<'calls.list'>;

/** One attempt at a vendor (GET /v1/activity). */
export type ActivityEntry = Row<'calls.activity'>;

/** Totals in USD (GET /v1/dashboard/savings). */
export type SavingsSummary = Output<'savings'>;

export class Calls {
  readonly #t: Transport;

  constructor(t: Transport) {
    this.#t = t;
  }

  /** Newest first, `limit` a page (default 50); pass the last call's id as `starting_after` for the next page. */
  list(params: Input<'calls.list'> = {}): Promise<CallRecord[]> {
    validate(callsQuery, params, 'GET /v1/calls');
    return this.#t.list<CallRecord>({ method: 'GET', path: '/v1/calls', auth: 'tenant', query: { agent: params.agent, limit: params.limit, starting_after: params.starting_after } });
  }

  /** Every call, newest first, a page (`limit`, default 100) at a time. */
  async *all(params: { agent?: string; limit?: number } = {}): AsyncGenerator<CallRecord> {
    const limit = params.limit ?? 100;
    let starting_after: string | undefined;
    for (;;) {
      const page = await this.list({ ...params, limit, ...(starting_after ? { starting_after } : {}) });
      yield* page;
      if (page.length < limit) return;
      starting_after = page.at(-1)!.id;
    }
  }

  /** One call by its id (the x-optimizer-call-id header); an OptimizerError 404 when the tenant has none. */
  get(id: string): Promise<CallRecord> {
    validate(callRef, { id }, 'GET /v1/calls/:id');
    return this.#t.json<CallRecord>({ method: 'GET', path: `/v1/calls/${seg(id)}`, auth: 'tenant' });
  }

  /**
   * One call by its id (the x-optimizer-call-id header, or call_id from a helper's info), with
   * its routed model, reasons and grades, however old; null when the tenant has no such call.
   */
  async find(id: string): Promise<CallRecord | null> {
    try {
      return await this.get(id);
    } catch (err) {
      if (err instanceof OptimizerError && err.status === 404) return null;
      throw err;
    }
  }
}

export class Activity {
  readonly #t: Transport;

  constructor(t: Transport) {
    this.#t = t;
  }

  list(params: Input<'calls.activity'> = {}): Promise<ActivityEntry[]> {
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

  /** Savings over the last `days` (default 30), in `points` buckets of equal width from the first call to the last. */
  series(params: CapabilityInput<'savingsSeries'> = {}, opts?: CallOptions): Promise<CapabilityOutput<'savingsSeries'>> {
    return callCapability(this.#t, 'savingsSeries', params, opts);
  }

  /** Where the saving came from over the last `days`: per step and per source (exploration apart), and the traffic per model over time. */
  breakdown(params: CapabilityInput<'breakdown'> = {}, opts?: CallOptions): Promise<CapabilityOutput<'breakdown'>> {
    return callCapability(this.#t, 'breakdown', params, opts);
  }
}
