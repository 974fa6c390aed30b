// Before a managed run's step is sent again (its run taken over after a runner stopped or
// died mid-step), whether sending it could pay for it twice. The step's call carries an
// Idempotency-Key (run id + step): an answered key replays without a dispatch. Where that
// answer is gone (an embedded gateway keeps keys in process) but the call was metered, the
// step is not sent again: the run fails cleanly instead. A claim left in flight by the dead
// runner is dropped, so the step is sent now rather than after the in-flight window.
import type { Meter } from '../meter/meter.ts';
import type { Idempotency } from '../pipeline/idempotency.ts';
import type { RunRow, RunStore } from './run-store.ts';

export type Prior = 'replay' | 'metered' | 'fresh';

export class StepLedger {
  readonly #idempotency: Idempotency;
  readonly #meter: Meter;
  readonly #store: RunStore;

  constructor(o: { idempotency: Idempotency; meter: Meter; store: RunStore }) {
    this.#idempotency = o.idempotency;
    this.#meter = o.meter;
    this.#store = o.store;
  }

  /** What became of an earlier attempt at the step whose call is `seq` of the run under `key`. */
  async prior(run: RunRow, key: string, seq: number): Promise<Prior> {
    const state = await this.#idempotency.state(run.account_id, key);
    if (state === 'done') return 'replay';
    await this.#meter.flush(); // this replica's records, for the lookup below
    const metered = await this.#store.sql<{ id: string }>(
      `select id from call_records where account_id = ? and (detail->'annotation'->'run'->>'id') = ?
        and (detail->'annotation'->'run'->>'seq') = ? and status between 200 and 299 limit 1`,
      [run.account_id, run.id, String(seq)],
    );
    if (metered.length > 0) return 'metered';
    if (state === 'in_flight') await this.#idempotency.abandon(run.account_id, key);
    return 'fresh';
  }
}
