import { Migration } from '@mikro-orm/migrations';

/**
 * The routed calls of a run, by tenant and run id: an outcome that reaches a replica which
 * did not serve the run (or one restarted since) finds its calls here. Without the index
 * that lookup read every call record of the table, once per such outcome. Partial: only
 * calls the optimizer decided carry a run's step, so only they are indexed.
 */
export class RunCallsIndex extends Migration {
  override name = '0007-run-calls-index';
  up(): void {
    this.addSql(
      `create index call_records_run_idx on call_records(account_id, (detail->'annotation'->'run'->>'id')) where detail->'optimizer' is not null`,
    );
  }
}
